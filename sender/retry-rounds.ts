// The retry/hold loop: a chunk's messages go to Apple in rounds; after each, what the outcome
// table (outcomes.ts) says to retry or hold goes again after a back-off (250 ms doubling, jittered,
// at most 5 s; Apple's Retry-After wins). Whether the gateway is out is a fact about one round of
// answers, not about the chunk's past (issue 37): a round in which the gateway decides no device
// (every answer a 5xx, a 429 without a device reason, or no answer at all) is an outage, and no
// device of it spends an attempt, whatever earlier rounds decided. In a round in which it decides
// some devices, its 5xx or bare 429 for another spends an attempt like a 429, so a device it keeps
// refusing while answering the rest ends `failed` after `maxAttempts`; no answer (status 0) never
// spends one. A round of this chunk with no decision while the gateway decided devices of another
// chunk of this sender is no outage either (Apple is up and refusing these). The waiting lasts up
// to `gatewayHoldMs`; then, if the gateway decided none of the chunk's devices,
// GatewayUnavailableError hands the chunk back uncounted (lease.ts); if it decided some, the
// devices still held end `failed` with their reason, so that those already decided are not
// delivered a second time by the chunk's next start (one device Apple alone answers 503 forever
// looks, from its chunk, exactly like an outage). An outage round is logged once when it starts
// and once when it ends, and the gauge says so meanwhile.
import type { Logger } from '../core/log.js';
import { backoffMs, type Backoff } from '../core/faults/backoff.js';
import { outageLog, type OutageLog } from '../core/faults/outage-log.js';
import { isProgrammingError } from '../core/faults/unavailable.js';
import type { ApnsResult } from '../core/apns/types.js';
import { actionFor, type Action } from './outcomes.js';
import type { SenderMetrics } from './metrics.js';
import type { RoutedMessage } from './routing.js';
import { pauseUnlessStopping } from './stoppable-wait.js';

/** The gateway gave no decision for `gatewayHoldMs`: the chunk goes back, uncounted. */
export class GatewayUnavailableError extends Error {
  override name = 'GatewayUnavailableError';
  constructor(readonly reason: string) {
    super(`APNs gateway unavailable (${reason})`);
  }
}

export interface RetrySettings {
  /** Attempts per device for retryable answers (429, an expired provider token). */
  maxAttempts: number;
  /** No decision from the gateway (no answer, or its own 5xx) is waited out this long, then the chunk goes back. */
  gatewayHoldMs: number;
  backoff: Backoff;
}

/** No wait between rounds is longer, whatever Apple's Retry-After says. */
const MAX_ROUND_WAIT_MS = 30_000;

type Hold = Extract<Action, { kind: 'hold' }>;

/**
 * The answer decides nothing about the device: no answer, the gateway's own 5xx, or a 429 that
 * names no device reason (Apple's per-device 429 says TooManyRequests; a bare one is the gateway
 * shedding load).
 */
export function undecided(r: Pick<ApnsResult, 'status' | 'reason' | 'local'>, action: Action): boolean {
  if (r.local) return false;
  if (action.kind === 'hold') return true;
  return r.status === 429 && !r.reason;
}

export class RetryRounds {
  private readonly gateway: OutageLog;
  /** When (performance.now()) the gateway last decided a device of any chunk of this sender. */
  private lastDecidedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: { logger: Logger; metrics: SenderMetrics; settings: RetrySettings; stopping(): boolean }) {
    this.gateway = outageLog(deps.logger, 'APNs gateway');
  }

  /** Each message's final action, in order. Sets `asked.askedApple` once Apple decided on a device. */
  async send(messages: RoutedMessage[], asked: { askedApple: boolean }): Promise<Action[]> {
    const { maxAttempts, backoff, gatewayHoldMs } = this.deps.settings;
    const actions: Action[] = new Array(messages.length);
    const attempts = new Uint8Array(messages.length);
    const holdUntil = Date.now() + gatewayHoldMs;
    let pending = messages.map((_, i) => i);
    // Each device's last answer, for the ones still held when the hold ends.
    const heldReason = new Map<number, string>();
    for (let round = 1; pending.length; round++) {
      const sentAt = performance.now();
      const results = await this.timedSend(pending.map((i) => messages[i]));
      const decided = results.map((r, k) => actionFor(r, { offEnvironment: messages[pending[k]].offEnvironment }));
      const gatewayOnly = results.map((r, k) => undecided(r, decided[k]));
      // A local refusal (core/apns/field-values.ts) reached no one: it is no decision of the gateway's.
      const decides = results.some((r, k) => !gatewayOnly[k] && !r.local);
      if (decides) {
        asked.askedApple = true;
        this.lastDecidedAt = performance.now();
      }
      // The gateway answered other chunks' devices while this round was out: it is up.
      const gatewayUp = decides || this.lastDecidedAt > sentAt;
      const again: number[] = [];
      let hintMs = 0;
      let waiting: Hold | undefined;
      let waited = 0;
      decided.forEach((action, k) => {
        const i = pending[k];
        if ('reason' in action) heldReason.set(i, action.reason);
        const waits = gatewayOnly[k] && (!gatewayUp || results[k].status === 0);
        if (waits) {
          waiting = { kind: 'hold', reason: 'reason' in action ? action.reason : 'TooManyRequests', retryAfterMs: results[k].retryAfterMs };
          waited++;
        }
        const spends = !waits && (action.kind === 'retry' || action.kind === 'hold');
        if (waits || (spends && ++attempts[i] < maxAttempts)) {
          again.push(i);
          hintMs = Math.max(hintMs, action.kind === 'retry' || action.kind === 'hold' ? (action.retryAfterMs ?? 0) : 0);
        } else {
          actions[i] = action.kind === 'retry' || action.kind === 'hold' ? { kind: 'failed', reason: action.reason } : action;
        }
      });
      this.gatewayRound(results.length, waited, waiting);
      pending = again;
      if (!pending.length) break;
      if (waiting && Date.now() >= holdUntil) {
        if (!asked.askedApple) throw new GatewayUnavailableError(waiting.reason);
        for (const i of pending) actions[i] = { kind: 'failed', reason: heldReason.get(i) ?? waiting.reason };
        break;
      }
      await pauseUnlessStopping(Math.min(MAX_ROUND_WAIT_MS, Math.max(backoffMs(round, backoff, Math.random), hintMs)), () => this.deps.stopping());
    }
    return actions;
  }

  /** One round's answers: a round in which every device waits on the gateway is the gateway out; anything else ends it. */
  private gatewayRound(asked: number, held: number, hold: Hold | undefined): void {
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
