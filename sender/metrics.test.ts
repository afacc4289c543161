// The sender's metrics for both gateways: deliveries counted under the gateway that decided them
// (forGateway), and FCM's twins of the APNs series (held attempts, the unavailable gauge, request
// latency by status, requests in flight) as FCM's rounds set them. The client is a scripted
// FcmClient (our port) that reports each answer as the real one does.
import { expect } from 'chai';
import pino from 'pino';
import type { FcmClient, FcmMessage, FcmResult } from '../core/fcm/types.js';
import { FcmRounds } from './fcm-rounds.js';
import { createSenderMetrics, forGateway, type SenderMetrics } from './metrics.js';
import { countDeliveries } from './tally.js';

const value = async (m: { get(): Promise<{ values: Array<{ value: number; labels: Record<string, unknown>; metricName?: string }> }> }, metricName?: string) =>
  (await m.get()).values.filter((v) => metricName === undefined || v.metricName === metricName);

/** Answers each round from `rounds` (one status for every message of the round), reporting each answer. */
function scripted(rounds: number[]): FcmClient {
  let n = 0;
  return {
    async send(messages: FcmMessage[], answered?: (status: number, seconds: number) => void): Promise<FcmResult[]> {
      const status = rounds[Math.min(n++, rounds.length - 1)];
      return messages.map((m) => {
        answered?.(status, 0.003);
        return { token: m.token, status, ...(status === 503 ? { errorCode: 'UNAVAILABLE' } : {}) };
      });
    },
    async close() {},
  };
}

describe('sender metrics: both gateways', () => {
  let metrics: SenderMetrics;
  beforeEach(() => (metrics = createSenderMetrics()));

  it('forGateway counts each delivery under its gateway, with its outcome and reason', async () => {
    countDeliveries(forGateway(metrics, 'apns'), [{ kind: 'sent' }, { kind: 'failed', reason: 'BadDeviceToken' }]);
    countDeliveries(forGateway(metrics, 'fcm'), [{ kind: 'sent' }, { kind: 'sent' }, { kind: 'unsubscribe', reason: 'UNREGISTERED' }, { kind: 'stop', reason: 'THIRD_PARTY_AUTH_ERROR' }]);
    const got = (await value(metrics.deliveries)).map((v) => [v.labels.gateway, v.labels.outcome, v.labels.reason, v.value]);
    expect(got).to.have.deep.members([
      ['apns', 'sent', '', 1],
      ['apns', 'failed', 'BadDeviceToken', 1],
      ['fcm', 'sent', '', 2],
      ['fcm', 'unsubscribed', 'UNREGISTERED', 1],
      ['fcm', 'left_out', 'THIRD_PARTY_AUTH_ERROR', 1],
    ]);
  });

  it('FCM out for two rounds, then back: held attempts counted, the gauge 1 during the outage and 0 after, latency by status, nothing left in flight', async () => {
    const rounds = new FcmRounds({ logger: pino({ level: 'silent' }), metrics, settings: { maxAttempts: 3, gatewayHoldMs: 60_000, backoff: { baseMs: 1, maxMs: 1 } }, stopping: () => false });
    const seen: number[] = [];
    const client = scripted([503, 503, 200]);
    const watching: FcmClient = {
      send: async (m, answered) => {
        seen.push((await value(metrics.fcmUnavailable))[0]?.value ?? -1);
        return client.send(m, answered);
      },
      close: async () => undefined,
    };
    const messages = [{ token: 'a', body: '{}' }, { token: 'b', body: '{}' }];
    expect(await rounds.send(watching, messages, { askedApple: false })).to.deep.equal([{ kind: 'sent' }, { kind: 'sent' }]);
    // Before each round: unset (0), after the first 503 round 1, after the second still 1.
    expect(seen).to.deep.equal([0, 1, 1]);
    expect((await value(metrics.fcmUnavailable))[0].value).to.equal(0);
    expect((await value(metrics.fcmHeld))[0].value).to.equal(4);
    const counts = (await value(metrics.fcmSeconds, 'herald_sender_fcm_request_duration_seconds_count')).map((v) => [v.labels.status, v.value]);
    expect(counts).to.have.deep.members([
      ['503', 4],
      ['200', 2],
    ]);
    expect((await value(metrics.fcmInflight))[0].value).to.equal(0);
    // The APNs series are Apple's alone.
    expect((await value(metrics.apnsHeld))[0]?.value ?? 0).to.equal(0);
    expect((await value(metrics.apnsUnavailable))[0]?.value ?? 0).to.equal(0);
  });

  it('a client that does not report its answers still leaves nothing in flight', async () => {
    const rounds = new FcmRounds({ logger: pino({ level: 'silent' }), metrics, settings: { maxAttempts: 3, gatewayHoldMs: 60_000, backoff: { baseMs: 1, maxMs: 1 } }, stopping: () => false });
    const silent: FcmClient = { send: async (m) => m.map((x) => ({ token: x.token, status: 200 })), close: async () => undefined };
    await rounds.send(silent, [{ token: 'a', body: '{}' }], { askedApple: false });
    expect((await value(metrics.fcmInflight))[0].value).to.equal(0);
  });
});
