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

type Routed = FcmMessage & { client: FcmClient };

export class FcmRounds {
  private readonly loop: GatewayRounds<Routed, FcmResult>;

  constructor(deps: { logger: Logger; metrics: SenderMetrics; settings: RetrySettings; stopping(): boolean }) {
    const { metrics } = deps;
    this.loop = new GatewayRounds<Routed, FcmResult>(
      {
        name: 'FCM',
        send: (messages) => timedSend(metrics, messages),
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
    return this.loop.send(
      messages.map((m) => ({ ...m, client })),
      asked,
    );
  }
}

/** One round through the App's client (every message of a round shares it: one access token asked). */
function timedSend(metrics: SenderMetrics, messages: Routed[]): Promise<FcmResult[]> {
  if (!messages.length) return Promise.resolve([]);
  const client = messages[0].client;
  metrics.fcmInflight.inc(messages.length);
  let open = messages.length;
  const answered = (status: number, seconds: number) => {
    open--;
    metrics.fcmInflight.dec();
    metrics.fcmSeconds.observe({ status: String(status) }, seconds);
  };
  // Whatever the client did not report as answered leaves the gauge when the batch ends.
  const settle = () => metrics.fcmInflight.dec(Math.max(0, open));
  return client.send(messages.map(({ token, body }) => ({ token, body })), answered).then(
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
