// An App's Android devices to FCM in rounds, as retry-rounds.ts sends iOS ones to Apple, with FCM's
// own table (core/fcm/outcomes.ts): what it says to hold goes again after a back-off (250 ms
// doubling, jittered, at most 5 s; FCM's Retry-After wins, up to 30 s). A device FCM did not decide
// waits without spending an attempt while FCM is out: no answer at all (status 0), a 429 (the
// project's quota), or its 5xx before it decided any device of this chunk. Once FCM decides devices
// of the chunk, a 5xx for one device spends an attempt, so a device it keeps refusing while
// answering the rest ends failed after `maxAttempts`. The waiting lasts up to `gatewayHoldMs`; then FcmUnavailableError (a GatewayUnavailableError) hands
// the chunk back (lease.ts), uncounted when no gateway decided any of its devices.
//
// Kept apart from retry-rounds.ts (Apple's rounds, which read Apple's answers) so the two gateways
// can change independently; both give the same Action per device to the same tally.
import type { Logger } from '../core/log.js';
import { backoffMs } from '../core/faults/backoff.js';
import { outageLog, type OutageLog } from '../core/faults/outage-log.js';
import { isProgrammingError } from '../core/faults/unavailable.js';
import { fcmActionFor } from '../core/fcm/outcomes.js';
import type { FcmClient, FcmMessage, FcmResult } from '../core/fcm/types.js';
import type { Action } from '../core/gateway/action.js';
import type { SenderMetrics } from './metrics.js';
import { GatewayUnavailableError, type RetrySettings } from './retry-rounds.js';
import { pauseUnlessStopping } from './stoppable-wait.js';

const MAX_ROUND_WAIT_MS = 30_000;

/** FCM gave no decision for `gatewayHoldMs`: the chunk goes back, uncounted (lease.ts reads the class). */
export class FcmUnavailableError extends GatewayUnavailableError {
  constructor(reason: string) {
    super(reason);
    this.message = `FCM gateway unavailable (${reason})`;
  }
}

type Hold = Extract<Action, { kind: 'hold' }>;

export class FcmRounds {
  private readonly gateway: OutageLog;

  constructor(private readonly deps: { logger: Logger; metrics: SenderMetrics; settings: RetrySettings; stopping(): boolean }) {
    this.gateway = outageLog(deps.logger, 'FCM gateway');
  }

  /** Each message's final action, in order. Sets `asked.askedApple` once a gateway (here FCM) decided on a device. */
  async send(client: FcmClient, messages: FcmMessage[], asked: { askedApple: boolean }): Promise<Action[]> {
    const { maxAttempts, backoff, gatewayHoldMs } = this.deps.settings;
    const actions: Action[] = new Array(messages.length);
    const attempts = new Uint8Array(messages.length);
    const holdUntil = Date.now() + gatewayHoldMs;
    let decidedAny = false;
    let pending = messages.map((_, i) => i);
    for (let round = 1; pending.length; round++) {
      const results = await this.timedSend(client, pending.map((i) => messages[i]));
      const decided = results.map(fcmActionFor);
      if (decided.some((a) => a.kind !== 'hold')) {
        decidedAny = true;
        asked.askedApple = true;
      }
      const again: number[] = [];
      let hintMs = 0;
      let waiting: Hold | undefined;
      let waited = 0;
      decided.forEach((action, k) => {
        const i = pending[k];
        // A quota answer is the project's rate (FCM counts messages per project per minute), never
        // the device's: it waits like no answer, whatever FCM decided of the others.
        const waits = action.kind === 'hold' && (results[k].status === 0 || results[k].status === 429 || !decidedAny);
        if (waits) {
          waiting = action;
          waited++;
        }
        const spends = action.kind === 'retry' || (action.kind === 'hold' && !waits);
        if (waits || (spends && ++attempts[i] < maxAttempts)) {
          again.push(i);
          if (action.kind === 'retry' || action.kind === 'hold') hintMs = Math.max(hintMs, action.retryAfterMs ?? 0);
        } else {
          actions[i] = action.kind === 'retry' || action.kind === 'hold' ? { kind: 'failed', reason: action.reason } : action;
        }
      });
      if (waiting !== undefined && waited === results.length) this.gateway.down(new FcmUnavailableError(waiting.reason));
      else this.gateway.up();
      pending = again;
      if (!pending.length) break;
      if (waiting && Date.now() >= holdUntil) throw new FcmUnavailableError(waiting.reason);
      await pauseUnlessStopping(Math.min(MAX_ROUND_WAIT_MS, Math.max(backoffMs(round, backoff, Math.random), hintMs)), () => this.deps.stopping());
    }
    return actions;
  }

  private timedSend(client: FcmClient, messages: FcmMessage[]): Promise<FcmResult[]> {
    const { metrics } = this.deps;
    metrics.inflight.inc(messages.length);
    return client.send(messages).then(
      (r) => {
        metrics.inflight.dec(messages.length);
        return r;
      },
      (error: Error): FcmResult[] => {
        metrics.inflight.dec(messages.length);
        // A bug in the client is not an outage: it fails the chunk (handed back, logged).
        if (isProgrammingError(error)) throw error;
        return messages.map((m) => ({ token: m.token, status: 0, errorCode: 'ClientError' }));
      },
    );
  }
}
