// Works one job from the shared consumer: a plan job (page the audience into chunk jobs) or a
// chunk job (deliver up to 500 devices and record the outcome once). Each JetStream decision is
// made here: ack when the job's effect is recorded (or already was), nak(delay) to come back later
// (another sender holds the chunk, throttle, failure), working() while a long job runs.
import type { Pool } from '../core/store/db.js';
import type { Bus } from '../core/bus/jetstream.js';
import type { Logger } from '../core/log.js';
import { isChunkJob, isPlanJob, type ChunkJob } from '../core/delivery/jobs.js';
import { planSend } from '../core/delivery/planner.js';
import {
  claimChunk,
  leaveOutChunk,
  loadChunkDevices,
  loadSendForDelivery,
  readChunk,
  recordChunk,
  renewLease,
  type ChunkOutcome,
  type ClaimedChunk,
  type Device,
} from '../core/delivery/chunks.js';
import { stopSend } from '../core/delivery/finish.js';
import { buildApnsPayload } from '../core/payload/apns-payload.js';
import { pickLanguage } from '../core/payload/language.js';
import type { AppRecord } from '../core/apps/app-store.js';
import type { SendRequest } from '../core/send/request.js';
import type { ApnsClient, ApnsMessage, ApnsResult } from './apns/types.js';
import { ApnsClients, CredentialsUnusableError } from './apns-clients.js';
import { actionFor, backoffMs, type Action } from './outcomes.js';
import type { Throttle } from './throttle.js';
import type { SenderMetrics } from './metrics.js';
import { isUnavailable } from '../core/faults/unavailable.js';
import { HandBack, holdThroughOutages, pauseUnlessStopping } from './outage-hold.js';

/** The part of a JetStream message the worker uses (a fake in unit tests). */
export interface WorkMessage {
  json<T = unknown>(): T;
  readonly info: { deliveryCount: number };
  ack(): void;
  nak(millis?: number): void;
  working(): void;
  term(reason?: string): void;
}

export interface WorkerSettings {
  /** The consumer's AckWait; also the chunk lease in the store. */
  ackWaitMs: number;
  /** The consumer's max_deliver: the last delivery records the chunk failed instead of sending. */
  maxDeliver: number;
  /** Attempts per device for retryable answers (429, 5xx, connection loss). */
  maxAttempts: number;
  backoff: { baseMs: number; maxMs: number };
  /** A throttled chunk waits in place up to this long; longer, it returns with nak(delay). */
  maxHoldMs: number;
}

export const DEFAULT_WORKER_SETTINGS: WorkerSettings = {
  ackWaitMs: 30_000,
  maxDeliver: 6,
  maxAttempts: 4,
  backoff: { baseMs: 250, maxMs: 5000 },
  maxHoldMs: 5000,
};

export interface WorkerDeps {
  pool: Pool;
  bus: Bus;
  logger: Logger;
  metrics: SenderMetrics;
  clients: ApnsClients;
  throttle?: Throttle;
  settings: WorkerSettings;
  /** True once the sender is stopping: throttle waits end with nak instead. */
  stopping(): boolean;
}

export type JobResult = 'ack' | 'nak' | 'term';

interface SendContext {
  request: SendRequest;
  app: AppRecord;
  payloads: Map<string, string>;
  at: number;
}

const SEND_CACHE_MS = 60_000;

export class ChunkWorker {
  private readonly sends = new Map<number, SendContext>();

  constructor(private readonly deps: WorkerDeps) {}

  async handle(msg: WorkMessage): Promise<JobResult> {
    let job: unknown;
    try {
      job = msg.json();
    } catch {
      msg.term('not JSON');
      return 'term';
    }
    if (isChunkJob(job)) return holdThroughOutages(this.deps, msg, () => this.chunk(msg, job));
    if (isPlanJob(job)) return holdThroughOutages(this.deps, msg, () => this.plan(msg, job.sendId));
    this.deps.logger.warn({ job }, 'unknown job dropped');
    msg.term('unknown job');
    return 'term';
  }

  private heartbeat(msg: WorkMessage, extra?: () => Promise<void>): () => void {
    const timer = setInterval(() => {
      msg.working();
      extra?.().catch(() => undefined);
    }, Math.max(250, Math.floor(this.deps.settings.ackWaitMs / 3)));
    return () => clearInterval(timer);
  }

  private async plan(msg: WorkMessage, sendId: number): Promise<JobResult | 'outage'> {
    const log = this.deps.logger.child({ sendId });
    const stop = this.heartbeat(msg);
    try {
      const started = Date.now();
      const outcome = await planSend(this.deps, sendId, { onProgress: () => msg.working() });
      log.info({ outcome, ms: Date.now() - started }, 'send planned');
      msg.ack();
      return 'ack';
    } catch (error) {
      if (isUnavailable(error)) return 'outage';
      log.warn({ err: error, delivery: msg.info.deliveryCount }, 'planning failed; the plan job comes back');
      msg.nak(1000 * msg.info.deliveryCount);
      return 'nak';
    } finally {
      stop();
    }
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

  private async chunk(msg: WorkMessage, job: ChunkJob): Promise<JobResult | 'outage'> {
    const { pool, settings, metrics } = this.deps;
    const { sendId, chunk } = job;
    const log = this.deps.logger.child({ sendId, chunk });
    try {
      const view = await readChunk(pool, sendId, chunk);
      // A chunk of a `scheduled` send is a timezone send's (it stays scheduled while it delivers).
      const running = view && (view.sendStatus === 'queued' || view.sendStatus === 'sending' || view.sendStatus === 'scheduled');
      if (!view || !view.state || view.state === 'done' || view.state === 'left_out' || !running) {
        metrics.chunks.inc({ result: 'duplicate' });
        msg.ack();
        return 'ack';
      }
      if (view.appOverdue || view.stopped) {
        // Delivery paused (or the send stopped): this chunk never starts, and the send closes.
        if (view.appOverdue && !view.stopped) await stopSend(pool, sendId, 'paused');
        if (view.state === 'working' && view.leaseLeftMs > 0) return this.nak(msg, view.leaseLeftMs + 100, 'busy');
        await leaveOutChunk(pool, sendId, chunk);
        metrics.chunks.inc({ result: 'left_out' });
        msg.ack();
        return 'ack';
      }
      if (view.state === 'working' && view.leaseLeftMs > 0) return this.nak(msg, view.leaseLeftMs + 100, 'busy');
      const throttled = view.throttlePerMinute && (view.targetKind === 'segment' || view.targetKind === 'tag') && !view.timezone;
      if (throttled && this.deps.throttle) {
        const waitMs = await this.deps.throttle.reserve(sendId, chunk, view.planned, view.throttlePerMinute!);
        if (waitMs > 0) {
          if (waitMs > settings.maxHoldMs || this.deps.stopping()) return this.nak(msg, waitMs, 'throttle');
          const stopBeat = this.heartbeat(msg);
          await pauseUnlessStopping(waitMs, () => this.deps.stopping()).finally(stopBeat);
        }
      }
      const claimed = await claimChunk(pool, sendId, chunk, settings.ackWaitMs);
      if (!claimed) return this.nak(msg, 250, 'claim lost'); // state moved under us: look again
      const ctx = await this.sendContext(sendId);
      if (!ctx) {
        msg.term('send vanished');
        return 'term';
      }
      const started = Date.now();
      const stopBeat = this.heartbeat(msg, () => renewLease(pool, sendId, chunk, settings.ackWaitMs));
      try {
        const outcome =
          msg.info.deliveryCount >= settings.maxDeliver
            ? await this.exhausted(ctx, claimed, log)
            : await this.deliver(ctx, view.credentialsVersion, sendId, claimed, log);
        const recorded = await recordChunk(pool, ctx.app.id, sendId, chunk, outcome);
        metrics.chunks.inc({ result: recorded.counted ? 'recorded' : 'duplicate' });
        metrics.chunkSeconds.observe((Date.now() - started) / 1000);
        if (recorded.finished) {
          log.info({ ...recorded.finished }, 'send finished');
          this.sends.delete(sendId);
        }
        msg.ack();
        return 'ack';
      } finally {
        stopBeat();
      }
    } catch (error) {
      if (error instanceof HandBack) return this.nak(msg, 1000, 'stopping');
      if (isUnavailable(error)) return 'outage';
      log.warn({ err: error, delivery: msg.info.deliveryCount }, 'chunk failed; it comes back');
      return this.nak(msg, Math.min(10_000, 500 * 2 ** Math.min(5, msg.info.deliveryCount)), 'error');
    }
  }

  private nak(msg: WorkMessage, delayMs: number, result: string): JobResult {
    this.deps.metrics.chunks.inc({ result: `nak_${result.replace(/\W/g, '_')}` });
    msg.nak(Math.max(1, Math.ceil(delayMs)));
    return 'nak';
  }

  /** The last delivery of a chunk that kept failing: recorded with its devices failed, not dropped. */
  private async exhausted(ctx: SendContext, claimed: ClaimedChunk, log: Logger): Promise<ChunkOutcome> {
    const { entries, devices } = await loadChunkDevices(this.deps.pool, ctx.app, ctx.request, claimed);
    const reached = new Set(devices.map((d) => d.entry));
    const failed = entries.filter((e) => reached.has(e)).length;
    log.error({ claims: claimed.claims, failed }, 'chunk exhausted its deliveries; its devices are recorded failed');
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

  private async deliver(ctx: SendContext, credentialsVersion: number, sendId: number, claimed: ClaimedChunk, log: Logger): Promise<ChunkOutcome> {
    const { entries, devices } = await loadChunkDevices(this.deps.pool, ctx.app, ctx.request, claimed);
    let client: ApnsClient;
    try {
      client = await this.deps.clients.get(ctx.app, credentialsVersion);
    } catch (error) {
      if (!(error instanceof CredentialsUnusableError)) throw error;
      return { ...tally(entries, claimed.planned, devices, devices.map(() => ({ kind: 'stop', reason: error.message }))), stop: error.message };
    }
    const apns = ctx.request.apns ?? {};
    const expiration = apns.ttlSeconds !== undefined ? Math.floor(Date.now() / 1000) + apns.ttlSeconds : undefined;
    const messages: ApnsMessage[] = devices.map((d) => {
      const m: ApnsMessage = { token: d.token, payload: this.payloadFor(ctx, sendId, d.language) };
      if (apns.priority !== undefined) m.priority = apns.priority;
      if (expiration !== undefined) m.expiration = expiration;
      if (apns.collapseId !== undefined) m.collapseId = apns.collapseId;
      return m;
    });
    const actions = await this.sendWithRetries(client, messages);
    const outcome = tally(entries, claimed.planned, devices, actions);
    for (const a of actions) {
      const outcomeLabel = a.kind === 'sent' ? 'sent' : a.kind === 'unsubscribe' ? 'unsubscribed' : a.kind === 'stop' ? 'left_out' : 'failed';
      this.deps.metrics.deliveries.inc({ outcome: outcomeLabel, reason: a.kind === 'sent' ? '' : a.reason });
    }
    const stop = actions.find((a) => a.kind === 'stop') as { reason: string } | undefined;
    if (stop) log.warn({ reason: stop.reason }, 'APNs refused the app credentials; the send stops');
    return stop ? { ...outcome, stop: stop.reason } : outcome;
  }

  /** Sends, then resends what the outcome table says to retry, with back-off, a bounded number of times. */
  private async sendWithRetries(client: ApnsClient, messages: ApnsMessage[]): Promise<Action[]> {
    const { maxAttempts, backoff } = this.deps.settings;
    const actions: Action[] = new Array(messages.length);
    let pending = messages.map((_, i) => i);
    for (let attempt = 1; pending.length; attempt++) {
      const results = await this.timedSend(client, pending.map((i) => messages[i]));
      const again: number[] = [];
      let hintMs = 0;
      results.forEach((r, k) => {
        const action = actionFor(r);
        if (action.kind === 'retry' && attempt < maxAttempts) {
          again.push(pending[k]);
          hintMs = Math.max(hintMs, action.retryAfterMs ?? 0);
        } else {
          actions[pending[k]] = action.kind === 'retry' ? { kind: 'failed', reason: action.reason } : action;
        }
      });
      pending = again;
      if (pending.length) await pauseUnlessStopping(Math.min(30_000, Math.max(backoffMs(attempt, backoff), hintMs)), () => this.deps.stopping());
    }
    return actions;
  }

  private timedSend(client: ApnsClient, messages: ApnsMessage[]): Promise<ApnsResult[]> {
    const { metrics } = this.deps;
    metrics.inflight.inc(messages.length);
    return Promise.all(
      messages.map((m) => {
        const t0 = performance.now();
        return client.send([m]).then(
          (r) => {
            metrics.inflight.dec();
            metrics.apnsSeconds.observe({ status: String(r[0].status) }, (performance.now() - t0) / 1000);
            return r[0];
          },
          (error: Error): ApnsResult => {
            metrics.inflight.dec();
            return { token: m.token, status: 0, reason: `ClientError: ${error.message}` };
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
export function tally(_entries: string[], planned: number, devices: Device[], actions: Action[]): ChunkOutcome {
  const rank = { sent: 3, failed: 2, unsubscribe: 2, retry: 2, stop: 1 } as const;
  const best = new Map<string, Action['kind']>();
  const unsubscribe: string[] = [];
  devices.forEach((d, i) => {
    const a = actions[i];
    if (a.kind === 'unsubscribe') unsubscribe.push(d.token);
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
