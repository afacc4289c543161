// FCM's side of the rounds loop (gateway-rounds.ts, where the rule is written once, as for Apple):
// an App's Android devices through its client, read by FCM's own table (core/fcm/outcomes.ts).
// FCM's 5xx (UNAVAILABLE, INTERNAL), its 429 QUOTA_EXCEEDED and no answer decide nothing about the
// device: a round of only those is FCM out, whatever the chunk's earlier rounds had (issue 37). A
// quota answer is the project's rate (FCM counts messages per project per minute), never the
// device's: it waits like no answer, even in a round in which FCM decided others.
import type { Logger } from '../core/log.js';
import { isProgrammingError } from '../core/faults/unavailable.js';
import { fcmActionFor } from '../core/fcm/outcomes.js';
import type { FcmClient, FcmMessage, FcmResult } from '../core/fcm/types.js';
import type { Action } from '../core/gateway/action.js';
import { GatewayRounds, GatewayUnavailableError, type RetrySettings } from './gateway-rounds.js';
import type { SenderMetrics } from './metrics.js';

/** FCM gave no decision for `gatewayHoldMs`: the chunk goes back, uncounted (lease.ts reads the class). */
export class FcmUnavailableError extends GatewayUnavailableError {
  constructor(reason: string) {
    super(reason, 'FCM');
  }
}

export class FcmRounds {
  private readonly loop: GatewayRounds<FcmMessage, FcmResult, FcmClient>;

  constructor(deps: { logger: Logger; metrics: SenderMetrics; settings: RetrySettings; stopping(): boolean }) {
    const { metrics } = deps;
    this.loop = new GatewayRounds<FcmMessage, FcmResult, FcmClient>(
      {
        name: 'FCM',
        send: (messages, client) => timedSend(metrics, client, messages),
        actionFor: (r) => fcmActionFor(r),
        undecided: (_r, action) => action.kind === 'hold',
        waitsAnyway: (r) => r.status === 429,
        unavailable: (reason) => new FcmUnavailableError(reason),
        round: (held, out) => {
          if (held) metrics.fcmHeld.inc(held);
          metrics.fcmUnavailable.set(out ? 1 : 0);
        },
      },
      deps,
    );
  }

  /** Each message's final action, in order. Sets `asked.askedApple` once a gateway (here FCM) decided on a device. */
  send(client: FcmClient, messages: FcmMessage[], asked: { askedApple: boolean }): Promise<Action[]> {
    return this.loop.send(messages, asked, client);
  }
}

/** One round through the App's client (one access token asked for the round). */
function timedSend(metrics: SenderMetrics, client: FcmClient, messages: FcmMessage[]): Promise<FcmResult[]> {
  if (!messages.length) return Promise.resolve([]);
  metrics.fcmInflight.inc(messages.length);
  const settle = () => metrics.fcmInflight.dec(messages.length);
  // Each answer timed as it arrives (the client reports it); the gauge follows the round.
  const answered = (status: number, seconds: number) => metrics.fcmSeconds.observe({ status: String(status) }, seconds);
  return client.send(messages, answered).then(
    (r) => {
      settle();
      return r;
    },
    (error: Error): FcmResult[] => {
      settle();
      // A bug in the client is not an outage: it fails the chunk (handed back, logged).
      if (isProgrammingError(error)) throw error;
      return messages.map((m) => ({ token: m.token, status: 0, errorCode: 'ClientError' }));
    },
  );
}
