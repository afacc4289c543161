// Apple's side of the rounds loop (gateway-rounds.ts, where the rule is written once): each
// routed message to its own environment's client, read by Apple's outcome table (outcomes.ts).
// Apple's 5xx, a 429 without a device reason (Apple's per-device 429 says TooManyRequests; a bare
// one is the gateway shedding load) and no answer decide nothing about the device: a round of only
// those is Apple out, whatever the chunk's earlier rounds had (issue 37).
import type { Logger } from '../core/log.js';
import { isProgrammingError } from '../core/faults/unavailable.js';
import type { ApnsResult } from '../core/apns/types.js';
import { actionFor, type Action } from './outcomes.js';
import { GatewayRounds, GatewayUnavailableError, type RetrySettings } from './gateway-rounds.js';
import type { SenderMetrics } from './metrics.js';
import type { RoutedMessage } from './routing.js';

export { GatewayUnavailableError, type RetrySettings };

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
  private readonly loop: GatewayRounds<RoutedMessage, ApnsResult>;

  constructor(deps: { logger: Logger; metrics: SenderMetrics; settings: RetrySettings; stopping(): boolean }) {
    const { metrics } = deps;
    this.loop = new GatewayRounds<RoutedMessage, ApnsResult>(
      {
        name: 'APNs',
        send: (messages) => timedSend(metrics, messages),
        actionFor: (r, m) => actionFor(r, { offEnvironment: m.offEnvironment }),
        undecided,
        unavailable: (reason) => new GatewayUnavailableError(reason, 'APNs'),
        round: (held, out) => {
          if (held) metrics.apnsHeld.inc(held);
          metrics.apnsUnavailable.set(out ? 1 : 0);
        },
      },
      deps,
    );
  }

  /** Each message's final action, in order. Sets `asked.askedApple` once Apple decided on a device. */
  send(messages: RoutedMessage[], asked: { askedApple: boolean }): Promise<Action[]> {
    return this.loop.send(messages, asked, undefined);
  }
}

function timedSend(metrics: SenderMetrics, messages: RoutedMessage[]): Promise<ApnsResult[]> {
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
