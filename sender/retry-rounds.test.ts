// The retry/hold loop and what counts as Apple's decision on a device of the chunk. A message
// refused here before sending (`local`, Unframeable: core/apns/field-values.ts) reached no one:
// it must not turn Apple's 5xx for the other devices into device failures, nor make the chunk's
// claim count towards poison (lease.ts reads askedApple).
import { expect } from 'chai';
import pino from 'pino';
import type { ApnsClient, ApnsMessage, ApnsResult } from '../core/apns/types.js';
import { createSenderMetrics } from './metrics.js';
import { GatewayUnavailableError, RetryRounds } from './retry-rounds.js';
import type { RoutedMessage } from './routing.js';

/** A client answering each token as `answers` says, every time it is asked. */
function client(answers: Record<string, Omit<ApnsResult, 'token'>>): ApnsClient {
  return {
    async send(messages: ApnsMessage[]) {
      return messages.map((m) => ({ token: m.token, ...answers[m.token] }));
    },
    async close() {},
  } as ApnsClient;
}

function rounds(gatewayHoldMs: number): RetryRounds {
  return new RetryRounds({
    logger: pino({ level: 'silent' }),
    metrics: createSenderMetrics(),
    settings: { maxAttempts: 2, gatewayHoldMs, backoff: { baseMs: 1, maxMs: 1 } },
    stopping: () => false,
  });
}

const routed = (c: ApnsClient, ...tokens: string[]): RoutedMessage[] => tokens.map((token) => ({ token, payload: '{}', client: c, offEnvironment: false }));
const UNAVAILABLE = { status: 503, reason: 'ServiceUnavailable' };

describe('retry rounds: what Apple decided', () => {
  it('a local refusal is no decision of Apple: the others, answered 503, are held and the chunk goes back uncounted', async () => {
    const c = client({ bad: { status: 0, reason: 'Unframeable', local: true }, good: UNAVAILABLE });
    const asked = { askedApple: false };
    const error = await rounds(0).send(routed(c, 'bad', 'good'), asked).catch((e: unknown) => e);
    expect(error, 'held until the gateway hold ends, not failed').to.be.instanceOf(GatewayUnavailableError);
    expect(asked.askedApple).to.equal(false);
  });

  it('a refusal from Apple is its decision: the others, answered 503, spend attempts and end failed', async () => {
    const c = client({ refused: { status: 400, reason: 'BadDeviceToken' }, good: UNAVAILABLE });
    const asked = { askedApple: false };
    const actions = await rounds(0).send(routed(c, 'refused', 'good'), asked);
    expect(actions).to.deep.equal([
      { kind: 'unsubscribe', reason: 'BadDeviceToken' },
      { kind: 'failed', reason: 'ServiceUnavailable' },
    ]);
    expect(asked.askedApple).to.equal(true);
  });
});
