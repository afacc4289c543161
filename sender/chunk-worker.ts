// A sender's work, one piece at a time (claim-loop.ts asks `next()` while a slot is free): plan
// the oldest unplanned send, else claim the next chunk (PostgreSQL decides which: claim.ts) and
// deliver its up to 500 devices, then record the outcome once. A throttled chunk that must wait
// long is handed back with a "not before", uncounted; a database outage is waited out holding the
// chunk (up to one lease), then an error hands it back (counted only if Apple decided on a device
// of it); an unreachable or failing gateway is waited out holding the chunk (up to
// `gatewayHoldMs`), then it is handed back the same way; a sender that dies leaves a lease that
// runs out. Nothing here counts a device as failed unless Apple answered and refused it (or the
// chunk was started `maxDeliver` times without ever being recorded).
import type { Pool } from '../core/store/db.js';
import type { Logger } from '../core/log.js';
import { planNext } from '../core/delivery/planner.js';
import { claimNext, handBack, renewLease, type ClaimedChunk, type Lane } from '../core/delivery/claim.js';
import { loadChunkDevices, loadSendForDelivery, recordChunk, type ChunkDevices, type ChunkOutcome, type Device } from '../core/delivery/chunks.js';
import { apnsHeaderValues } from '../core/payload/apns-headers.js';
import { buildApnsPayload } from '../core/payload/apns-payload.js';
import { pickLanguage } from '../core/payload/language.js';
import type { AppRecord } from '../core/apps/app-store.js';
import type { SendRequest } from '../core/send/request.js';
import type { ApnsClient, ApnsMessage, ApnsResult } from './apns/types.js';
import { ApnsClients, CredentialsUnusableError } from './apns-clients.js';
import { actionFor, type Action } from './outcomes.js';
import { backoffMs } from '../core/faults/backoff.js';
import type { Throttle } from './throttle.js';
import type { SenderMetrics } from './metrics.js';
import type { Work } from './claim-loop.js';
import { HandBack, pauseUnlessStopping } from './stoppable-wait.js';
import { outageLog, type OutageLog } from '../core/faults/outage-log.js';
import { isProgrammingError } from '../core/faults/unavailable.js';

/** The gateway gave no decision for `gatewayHoldMs`: the chunk goes back, uncounted. */
export class GatewayUnavailableError extends Error {
  override name = 'GatewayUnavailableError';
  constructor(readonly reason: string) {
    super(`APNs gateway unavailable (${reason})`);
  }
}

export interface WorkerSettings {
  /** The chunk lease: a chunk whose sender stopped renewing it is claimable again after this. */
  ackWaitMs: number;
  /** A chunk started this many times without being recorded is recorded failed (a poison chunk). */
  maxDeliver: number;
  /** Attempts per device for retryable answers (429, an expired provider token). */
  maxAttempts: number;
  /**
   * No answer from the gateway, or its own 5xx, is an outage: the chunk is held (its lease renewed)
   * and retried up to this long, then handed back uncounted.
   */
  gatewayHoldMs: number;
  backoff: { baseMs: number; maxMs: number };
  /** A throttled chunk waits in place up to this long; longer, it is handed back until its turn. */
  maxHoldMs: number;
  /** An idle sender looks for work this often even without a wake-up (a lost one costs no more). */
  idlePollMs: number;
}

export const DEFAULT_WORKER_SETTINGS: WorkerSettings = {
  ackWaitMs: 30_000,
  maxDeliver: 6,
  maxAttempts: 4,
  gatewayHoldMs: 300_000,
  backoff: { baseMs: 250, maxMs: 5000 },
  maxHoldMs: 5000,
  idlePollMs: 1000,
};

export interface WorkerDeps {
  pool: Pool;
  logger: Logger;
  metrics: SenderMetrics;
  clients: ApnsClients;
  throttle?: Throttle;
  settings: WorkerSettings;
  /** True once the sender is stopping: throttle waits end with a hand-back instead. */
  stopping(): boolean;
  /** Live Activity pushes only: the fast lane's worker (sender.ts). Default: any send. */
  lane?: Lane;
}

/** A message with the client of its device's environment, and whether that is not the App's own. */
type RoutedMessage = ApnsMessage & { client: ApnsClient; offEnvironment: boolean };

interface SendContext {
  request: SendRequest;
  app: AppRecord;
  payloads: Map<string, string>;
  at: number;
}

const SEND_CACHE_MS = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ChunkWorker {
  private readonly sends = new Map<number, SendContext>();
  private readonly gateway: OutageLog;

  constructor(private readonly deps: WorkerDeps) {
    this.gateway = outageLog(deps.logger, 'APNs gateway');
  }

  /** Whether to look for a send to plan before the next claim (a wake-up, an idle round, a hint of the claim). */
  private mayPlan = true;

  /** A wake-up from the bus: a send may have been accepted. */
  wake(): void {
    this.mayPlan = true;
  }

  /** The next piece of work, already taken (a plan is done inside it), or undefined. */
  async next(): Promise<Work | undefined> {
    if (this.mayPlan) {
      this.mayPlan = false;
      const planned = await planNext(this.deps.pool, this.deps.lane);
      if (planned) {
        this.mayPlan = true; // there may be more
        this.deps.logger.info({ sendId: planned.sendId, outcome: planned.outcome }, 'send planned');
        return async () => undefined; // planned in the transaction above; the slot is free again
      }
    }
    const claimed = await claimNext(this.deps.pool, this.deps.settings.ackWaitMs, this.deps.lane);
    // Nothing to claim: look for a send to plan after the pause (a wake-up may have been lost).
    this.mayPlan ||= !claimed || claimed.unplannedWaiting;
    return claimed ? () => this.chunk(claimed) : undefined;
  }

  private async sendContext(sendId: number): Promise<SendContext | undefined> {
    const known = this.sends.get(sendId);
    if (known && Date.now() - known.at < SEND_CACHE_MS) return known;
    const loaded = await loadSendForDelivery(this.deps.pool, sendId);
    if (!loaded) return undefined;
    const ctx = { ...loaded, payloads: new Map<string, string>(), at: Date.now() };
    this.sends.set(sendId, ctx);
    if (this.sends.size > 1000) this.sends.delete(this.sends.keys().next().value as number);
    return ctx;
  }

  /** Renews the chunk's lease every lease/3 until the returned function is called. */
  private heartbeat(c: ClaimedChunk): () => void {
    const { pool, settings } = this.deps;
    const timer = setInterval(() => {
      renewLease(pool, c.sendId, c.chunk, settings.ackWaitMs).catch(() => undefined);
    }, Math.max(250, Math.floor(settings.ackWaitMs / 3)));
    return () => clearInterval(timer);
  }

  /**
   * Runs `step` until it succeeds, for at most one lease (a database outage): holding the chunk
   * instead of handing it back, so a short outage costs no second delivery of its devices.
   */
  private async persist<T>(step: () => Promise<T>): Promise<T> {
    const until = Date.now() + this.deps.settings.ackWaitMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await step();
      } catch (error) {
        if (Date.now() >= until || this.deps.stopping()) throw error;
        await sleep(backoffMs(attempt, { baseMs: 200, maxMs: 2000 }));
      }
    }
  }

  private async chunk(c: ClaimedChunk): Promise<void> {
    const { pool, settings, metrics } = this.deps;
    const { sendId, chunk } = c;
    const log = this.deps.logger.child({ sendId, chunk });
    const stopBeat = this.heartbeat(c);
    // Whether Apple decided on a device of this chunk: only then does the claim count towards
    // maxDeliver when the chunk goes back (an outage must never exhaust a chunk).
    const asked = { apple: false };
    try {
      const throttled = c.throttlePerMinute && (c.targetKind === 'segment' || c.targetKind === 'tag' || c.targetKind === 'filters') && !c.timezone;
      if (throttled && this.deps.throttle) {
        const waitMs = await this.deps.throttle.reserve(sendId, chunk, c.planned, c.throttlePerMinute!);
        if (waitMs > settings.maxHoldMs || (waitMs > 0 && this.deps.stopping())) {
          await this.persist(() => handBack(pool, sendId, chunk, waitMs, { uncount: true }));
          metrics.chunks.inc({ result: 'handed_back_throttle' });
          return;
        }
        if (waitMs > 0) await pauseUnlessStopping(waitMs, () => this.deps.stopping());
      }
      const ctx = await this.persist(() => this.sendContext(sendId));
      if (!ctx) return; // the send was deleted: its chunks went with it
      const started = Date.now();
      let outcome: ChunkOutcome;
      if (c.claims >= settings.maxDeliver) outcome = await this.persist(() => this.exhausted(ctx, c, log));
      else {
        const devices = await this.persist(() => loadChunkDevices(pool, ctx.app, ctx.request, c));
        outcome = await this.deliver(ctx, c, devices, log, asked);
      }
      const recorded = await this.persist(() => recordChunk(pool, ctx.app.id, sendId, chunk, outcome, ctx.request.liveActivity));
      metrics.chunks.inc({ result: recorded.counted ? 'recorded' : 'duplicate' });
      metrics.chunkSeconds.observe((Date.now() - started) / 1000);
      if (recorded.finished) {
        log.info({ ...recorded.finished }, 'send finished');
        this.sends.delete(sendId);
      }
    } catch (error) {
      if (error instanceof HandBack) {
        // The sender stops during a wait: the chunk goes back unrecorded, at once.
        metrics.chunks.inc({ result: 'handed_back_stopping' });
        await handBack(pool, sendId, chunk, 0, { uncount: !asked.apple }).catch(() => undefined);
        return;
      }
      if (error instanceof GatewayUnavailableError) {
        log.warn({ reason: error.reason, claims: c.claims }, 'APNs gateway unavailable past the hold; the chunk is handed back');
        metrics.chunks.inc({ result: 'handed_back_gateway' });
        await handBack(pool, sendId, chunk, 0, { uncount: !asked.apple }).catch(() => undefined);
        return;
      }
      // Hand it back after a back-off; the claim counts only if Apple was asked. If the database
      // stays down, the lease running out frees it instead.
      log.warn({ err: error, claims: c.claims }, 'chunk failed; it is handed back');
      metrics.chunks.inc({ result: 'handed_back_error' });
      const delay = backoffMs(c.claims, { baseMs: 1000, maxMs: 10_000 });
      await handBack(pool, sendId, chunk, delay, { uncount: !asked.apple }).catch(() => undefined);
    } finally {
      stopBeat();
    }
  }

  /** A chunk started more than maxDeliver times, never recorded: its devices recorded failed, not dropped. */
  private async exhausted(ctx: SendContext, claimed: ClaimedChunk, log: Logger): Promise<ChunkOutcome> {
    const { entries, devices } = await loadChunkDevices(this.deps.pool, ctx.app, ctx.request, claimed);
    const reached = new Set(devices.map((d) => d.entry));
    const failed = entries.filter((e) => reached.has(e)).length;
    log.error({ claims: claimed.claims, failed }, 'chunk started too many times without a record; its devices are recorded failed');
    this.deps.metrics.chunks.inc({ result: 'exhausted' });
    this.deps.metrics.deliveries.inc({ outcome: 'failed', reason: 'RedeliveryExhausted' }, failed);
    return { sent: 0, failed, skipped: Math.max(0, claimed.planned - failed), leftOut: 0, unsubscribe: [] };
  }

  private payloadFor(ctx: SendContext, sendId: number, language: string | null): string {
    const key = language ?? '';
    let payload = ctx.payloads.get(key);
    if (payload === undefined) {
      payload = buildApnsPayload(ctx.request, pickLanguage(ctx.request, language ?? undefined), { sendId });
      ctx.payloads.set(key, payload);
    }
    return payload;
  }

  private async deliver(ctx: SendContext, claimed: ClaimedChunk, loaded: ChunkDevices, log: Logger, asked: { apple: boolean }): Promise<ChunkOutcome> {
    const sendId = claimed.sendId;
    const { devices } = loaded;
    // Each device goes to its own environment's gateway (a development build's token is valid
    // only on the sandbox one): at most two clients per chunk.
    const clientOf = new Map<'production' | 'sandbox', ApnsClient>();
    try {
      for (const d of devices) {
        const environment = d.environment ?? ctx.app.environment;
        if (!clientOf.has(environment)) clientOf.set(environment, await this.deps.clients.get(ctx.app, claimed.credentialsVersion, environment));
      }
    } catch (error) {
      if (!(error instanceof CredentialsUnusableError)) throw error;
      return { ...tally(claimed.planned, devices, devices.map(() => ({ kind: 'stop', reason: error.message }))), stop: error.message };
    }
    const headers = apnsHeaderValues({ ...ctx.request, apns: ctx.request.apns ?? {} }, Date.now() / 1000);
    const messages: RoutedMessage[] = devices.map((d) => ({
      token: d.token,
      payload: this.payloadFor(ctx, sendId, d.language),
      ...headers,
      client: clientOf.get(d.environment ?? ctx.app.environment)!,
      offEnvironment: (d.environment ?? ctx.app.environment) !== ctx.app.environment,
    }));
    const actions = await this.sendWithRetries(messages, asked);
    const outcome = tally(claimed.planned, devices, actions);
    // An end: the tokens Apple took it for, dropped with the chunk's record (recordChunk).
    if (ctx.request.liveActivity?.event === 'end') outcome.ended = devices.filter((_, i) => actions[i].kind === 'sent').map(({ subscriptionId, token }) => ({ subscriptionId, token }));
    for (const a of actions) {
      const outcomeLabel = a.kind === 'sent' ? 'sent' : a.kind === 'unsubscribe' ? 'unsubscribed' : a.kind === 'stop' ? 'left_out' : 'failed';
      this.deps.metrics.deliveries.inc({ outcome: outcomeLabel, reason: a.kind === 'sent' ? '' : a.reason });
    }
    const stop = actions.find((a) => a.kind === 'stop') as { reason: string } | undefined;
    if (stop) log.warn({ reason: stop.reason }, 'APNs refused the app credentials; the send stops');
    return stop ? { ...outcome, stop: stop.reason } : outcome;
  }

  /**
   * Sends, then resends what the outcome table says to retry or hold, with back-off. A device
   * Apple did not decide waits without spending an attempt while the gateway is out: no answer at
   * all (status 0), or Apple's 5xx before it decided any device of this chunk. Once Apple decides
   * devices of the chunk, its 5xx for one device spends an attempt like a 429, so a device it
   * keeps failing while answering the rest ends `failed` after `maxAttempts`. Waiting lasts up to
   * `gatewayHoldMs`. Sets `asked.apple` once Apple decided on a device.
   */
  private async sendWithRetries(messages: RoutedMessage[], asked: { apple: boolean }): Promise<Action[]> {
    const { maxAttempts, backoff, gatewayHoldMs } = this.deps.settings;
    const actions: Action[] = new Array(messages.length);
    const attempts = new Uint8Array(messages.length);
    const holdUntil = Date.now() + gatewayHoldMs;
    let pending = messages.map((_, i) => i);
    for (let round = 1; pending.length; round++) {
      const results = await this.timedSend(pending.map((i) => messages[i]));
      const decided = results.map((r, k) => actionFor(r, { offEnvironment: messages[pending[k]].offEnvironment }));
      if (decided.some((a) => a.kind !== 'hold')) asked.apple = true;
      const again: number[] = [];
      let hintMs = 0;
      let waiting: Extract<Action, { kind: 'hold' }> | undefined;
      decided.forEach((action, k) => {
        const i = pending[k];
        const waits = action.kind === 'hold' && (results[k].status === 0 || !asked.apple);
        if (waits) waiting = action;
        const spends = action.kind === 'retry' || (action.kind === 'hold' && !waits);
        if (waits || (spends && ++attempts[i] < maxAttempts)) {
          again.push(i);
          hintMs = Math.max(hintMs, action.kind === 'retry' || action.kind === 'hold' ? (action.retryAfterMs ?? 0) : 0);
        } else {
          actions[i] = action.kind === 'retry' || action.kind === 'hold' ? { kind: 'failed', reason: action.reason } : action;
        }
      });
      const waited = decided.filter((a, k) => a.kind === 'hold' && (results[k].status === 0 || !asked.apple)).length;
      this.gatewayRound(results.length, waited, waiting);
      pending = again;
      if (!pending.length) break;
      if (waiting && Date.now() >= holdUntil) throw new GatewayUnavailableError(waiting.reason);
      await pauseUnlessStopping(Math.min(30_000, Math.max(backoffMs(round, backoff, Math.random), hintMs)), () => this.deps.stopping());
    }
    return actions;
  }

  /** One round's answers: a round in which every device waits on the gateway is the gateway out; anything else ends it. */
  private gatewayRound(asked: number, held: number, hold: Extract<Action, { kind: 'hold' }> | undefined): void {
    const { metrics } = this.deps;
    if (hold) metrics.apnsHeld.inc(held);
    const out = hold !== undefined && held === asked;
    if (out) this.gateway.down(new GatewayUnavailableError(hold.reason));
    else this.gateway.up();
    metrics.apnsUnavailable.set(out ? 1 : 0);
  }

  private timedSend(messages: RoutedMessage[]): Promise<ApnsResult[]> {
    const { metrics } = this.deps;
    metrics.inflight.inc(messages.length);
    return Promise.all(
      messages.map(({ client, offEnvironment: _routing, ...m }) => {
        const t0 = performance.now();
        return client.send([m]).then(
          (r) => {
            metrics.inflight.dec();
            metrics.apnsSeconds.observe({ status: String(r[0].status) }, (performance.now() - t0) / 1000);
            return r[0];
          },
          (error: Error): ApnsResult => {
            metrics.inflight.dec();
            // A bug in the client is not an outage: it fails the chunk (handed back, logged).
            if (isProgrammingError(error)) throw error;
            return { token: m.token, status: 0, reason: 'ClientError' };
          },
        );
      }),
    );
  }
}

/**
 * Counts a chunk by audience entry: a device for segment and tag sends, a given id for lists (an
 * external id may name several installs: sent when any was accepted, else failed when any was
 * refused, else left out; an entry with no subscribed install is skipped).
 */
export function tally(planned: number, devices: Device[], actions: Action[]): ChunkOutcome {
  const rank = { sent: 3, failed: 2, unsubscribe: 2, retry: 2, hold: 2, stop: 1 } as const;
  const best = new Map<string, Action['kind']>();
  const unsubscribe: ChunkOutcome['unsubscribe'] = [];
  devices.forEach((d, i) => {
    const a = actions[i];
    if (a.kind === 'unsubscribe') unsubscribe.push({ subscriptionId: d.subscriptionId, token: d.token, reason: a.reason, appleTimestampMs: a.appleTimestampMs });
    const prev = best.get(d.entry);
    if (!prev || rank[a.kind] > rank[prev]) best.set(d.entry, a.kind);
  });
  let sent = 0;
  let failed = 0;
  let leftOut = 0;
  for (const kind of best.values()) {
    if (kind === 'sent') sent++;
    else if (kind === 'stop') leftOut++;
    else failed++;
  }
  // Entries planned but not found now (unsubscribed since the plan, unknown ids) are skipped.
  return { sent, failed, skipped: Math.max(0, planned - best.size), leftOut, unsubscribe };
}
