// The retry/hold loop of every gateway (APNs: retry-rounds.ts, FCM: fcm-rounds.ts): a chunk's
// messages go to the gateway in rounds; after each, what the gateway's outcome table says to retry
// or hold goes again after a back-off (250 ms doubling, jittered, at most 5 s; the gateway's
// Retry-After wins, up to 30 s). Written once so that both gateways obey one rule (issue 37 point
// 1): whether the gateway is out is a fact about one round of answers, not about the chunk's past.
// A round in which the gateway decides no device (every answer a 5xx, a 429 without a device
// reason, or no answer at all) is an outage, and no device of it spends an attempt, whatever
// earlier rounds decided. In a round in which it decides some devices, its 5xx or bare 429 for
// another spends an attempt like a per-device 429, so a device it keeps refusing while answering
// the rest ends `failed` after `maxAttempts`; no answer (status 0), and whatever the adapter says
// waits anyway (FCM's project quota), never spends one. A round of this chunk with no decision
// while the gateway decided devices of another chunk of this sender is no outage either (the
// gateway is up and refusing these). The waiting lasts up to `gatewayHoldMs`; then, if no gateway
// decided any of the chunk's devices, GatewayUnavailableError hands the chunk back uncounted
// (lease.ts); if one did, the devices still held end `failed` with their reason, so that those
// already decided are not delivered a second time by the chunk's next start (one device the
// gateway alone answers 503 forever looks, from its chunk, exactly like an outage). An outage
// round is logged once when it starts and once when it ends, and the gateway's gauge says so
// meanwhile.
import type { Logger } from '../core/log.js';
import { backoffMs, type Backoff } from '../core/faults/backoff.js';
import { outageLog, type OutageLog } from '../core/faults/outage-log.js';
import type { Action } from '../core/gateway/action.js';
import { pauseUnlessStopping } from './stoppable-wait.js';

/** The gateway gave no decision for `gatewayHoldMs`: the chunk goes back, uncounted. */
export class GatewayUnavailableError extends Error {
  override name = 'GatewayUnavailableError';
  constructor(
    readonly reason: string,
    readonly gateway: string = 'APNs',
  ) {
    super(`${gateway} gateway unavailable (${reason})`);
  }
}

export interface RetrySettings {
  /** Attempts per device for retryable answers (429, an expired provider token). */
  maxAttempts: number;
  /** No decision from the gateway (no answer, or its own 5xx) is waited out this long, then the chunk goes back. */
  gatewayHoldMs: number;
  backoff: Backoff;
}

/** What the loop reads of an answer, whichever the gateway. */
export interface Answer {
  status: number;
  retryAfterMs?: number;
  /** Refused here before sending (core/apns/field-values.ts): no decision of the gateway's. */
  local?: boolean;
}

/** One gateway as the loop sees it: how to send a round, and how to read its answers. */
export interface RoundGateway<M, R extends Answer, C = undefined> {
  /** "APNs", "FCM": the outage log's and the error's name. */
  name: string;
  /** One answer per message, in order; rejects only for a bug in the client. `context`: the caller's (FCM: the App's client). */
  send(messages: M[], context: C): Promise<R[]>;
  /** The gateway's outcome table. */
  actionFor(answer: R, message: M): Action;
  /** The answer decides nothing about the device: the gateway's own trouble. */
  undecided(answer: R, action: Action): boolean;
  /** An undecided answer that waits even in a round in which the gateway decided others (FCM's project quota). */
  waitsAnyway?(answer: R): boolean;
  unavailable(reason: string): GatewayUnavailableError;
  /** Each round's device attempts held, and whether the round was an outage (the gateway's metrics). */
  round(held: number, out: boolean): void;
}

/** No wait between rounds is longer, whatever the gateway's Retry-After says. */
const MAX_ROUND_WAIT_MS = 30_000;

type Hold = Extract<Action, { kind: 'hold' }>;

export class GatewayRounds<M, R extends Answer, C = undefined> {
  private readonly outage: OutageLog;
  /** When (performance.now()) the gateway last decided a device of any chunk of this sender. */
  private lastDecidedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly gateway: RoundGateway<M, R, C>,
    private readonly deps: { logger: Logger; settings: RetrySettings; stopping(): boolean },
  ) {
    this.outage = outageLog(deps.logger, `${gateway.name} gateway`);
  }

  /** Each message's final action, in order. Sets `asked.askedApple` once the gateway decided on a device. */
  async send(messages: M[], asked: { askedApple: boolean }, context: C): Promise<Action[]> {
    const { maxAttempts, backoff, gatewayHoldMs } = this.deps.settings;
    const gw = this.gateway;
    const actions: Action[] = new Array(messages.length);
    const attempts = new Uint8Array(messages.length);
    const holdUntil = Date.now() + gatewayHoldMs;
    let pending = messages.map((_, i) => i);
    // Each device's last answer, for the ones still held when the hold ends.
    const heldReason = new Map<number, string>();
    for (let round = 1; pending.length; round++) {
      const sentAt = performance.now();
      const results = await gw.send(pending.map((i) => messages[i]), context);
      const decided = results.map((r, k) => gw.actionFor(r, messages[pending[k]]));
      const gatewayOnly = results.map((r, k) => !r.local && gw.undecided(r, decided[k]));
      // A local refusal reached no one: it is no decision of the gateway's.
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
        const r = results[k];
        if ('reason' in action) heldReason.set(i, action.reason);
        const waits = gatewayOnly[k] && (!gatewayUp || r.status === 0 || gw.waitsAnyway?.(r) === true);
        if (waits) {
          waiting = { kind: 'hold', reason: 'reason' in action ? action.reason : 'TooManyRequests', retryAfterMs: r.retryAfterMs };
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
      this.endOfRound(results.length, waited, waiting);
      pending = again;
      if (!pending.length) break;
      if (waiting && Date.now() >= holdUntil) {
        if (!asked.askedApple) throw gw.unavailable(waiting.reason);
        for (const i of pending) actions[i] = { kind: 'failed', reason: heldReason.get(i) ?? waiting.reason };
        break;
      }
      await pauseUnlessStopping(Math.min(MAX_ROUND_WAIT_MS, Math.max(backoffMs(round, backoff, Math.random), hintMs)), () => this.deps.stopping());
    }
    return actions;
  }

  /** One round's answers: a round in which every device waits on the gateway is the gateway out; anything else ends it. */
  private endOfRound(asked: number, held: number, hold: Hold | undefined): void {
    const out = hold !== undefined && held === asked;
    if (out) this.outage.down(this.gateway.unavailable(hold.reason));
    else this.outage.up();
    this.gateway.round(hold ? held : 0, out);
  }
}
