// The retry/hold loop and what counts as the gateway's decision on a device. Whether the gateway
// is out is decided per round of answers (issue 37): a round in which it decides no device spends
// no attempt, whatever earlier rounds of the chunk had. A message refused here before sending
// (`local`, Unframeable: core/apns/field-values.ts) reached no one: it must not turn Apple's 5xx
// for the other devices into device failures, nor make the chunk's claim count towards poison
// (lease.ts reads askedApple).
import { expect } from 'chai';
import pino from 'pino';
import type { ApnsClient, ApnsMessage, ApnsResult } from '../core/apns/types.js';
import { createSenderMetrics } from './metrics.js';
import { GatewayUnavailableError, RetryRounds } from './retry-rounds.js';
import type { RoutedMessage } from './routing.js';

type Answer = Omit<ApnsResult, 'token'>;

/** A client answering each token as `answer` says for its nth attempt (1-based). */
function scripted(answer: (token: string, attempt: number) => Answer): ApnsClient & { attempts: Map<string, number> } {
  const attempts = new Map<string, number>();
  return {
    attempts,
    async send(messages: ApnsMessage[]) {
      return messages.map((m) => {
        const n = (attempts.get(m.token) ?? 0) + 1;
        attempts.set(m.token, n);
        return { token: m.token, ...answer(m.token, n) };
      });
    },
    async close() {},
  } as ApnsClient & { attempts: Map<string, number> };
}

/** A client answering each token the same, every time it is asked. */
const client = (answers: Record<string, Answer>) => scripted((t) => answers[t]);

function rounds(gatewayHoldMs: number, maxAttempts = 2): RetryRounds {
  return new RetryRounds({
    logger: pino({ level: 'silent' }),
    metrics: createSenderMetrics(),
    settings: { maxAttempts, gatewayHoldMs, backoff: { baseMs: 1, maxMs: 1 } },
    stopping: () => false,
  });
}

const routed = (c: ApnsClient, ...tokens: string[]): RoutedMessage[] => tokens.map((token) => ({ token, payload: '{}', client: c, offEnvironment: false }));
const OK = { status: 200 };
const UNAVAILABLE = { status: 503, reason: 'ServiceUnavailable' };
const THROTTLED = { status: 429, reason: 'TooManyRequests' };
const SHEDDING = { status: 429 };
const NO_ANSWER = { status: 0, reason: 'ConnectionError' };

describe('retry rounds: what Apple decided', () => {
  it('a local refusal is no decision of Apple: the others, answered 503, are held and the chunk goes back uncounted', async () => {
    const c = client({ bad: { status: 0, reason: 'Unframeable', local: true }, good: UNAVAILABLE });
    const asked = { askedApple: false };
    const error = await rounds(0).send(routed(c, 'bad', 'good'), asked).catch((e: unknown) => e);
    expect(error, 'held until the gateway hold ends, not failed').to.be.instanceOf(GatewayUnavailableError);
    expect(asked.askedApple).to.equal(false);
  });

  it('a device Apple keeps refusing with 503 while it decides others in the same rounds ends failed after maxAttempts', async () => {
    const c = client({ throttled: THROTTLED, refused: UNAVAILABLE });
    const asked = { askedApple: false };
    const actions = await rounds(0).send(routed(c, 'throttled', 'refused'), asked);
    expect(actions).to.deep.equal([
      { kind: 'failed', reason: 'TooManyRequests' },
      { kind: 'failed', reason: 'ServiceUnavailable' },
    ]);
    expect(c.attempts.get('refused')).to.equal(2);
    expect(asked.askedApple).to.equal(true);
  });

  it('a 503 in a round Apple also decides spends one attempt; the next rounds, all 503, are an outage and spend none', async () => {
    // maxAttempts 2: the mixed round spends the first; the old rule spent the second in round 2.
    const c = scripted((t, n) => (t === 'ok' ? OK : n <= 6 ? UNAVAILABLE : OK));
    const actions = await rounds(60_000).send(routed(c, 'ok', 'late'), { askedApple: false });
    expect(actions).to.deep.equal([{ kind: 'sent' }, { kind: 'sent' }]);
    expect(c.attempts.get('late')).to.equal(7);
  });

  it('first half 200, second half meets a total 503 outage, then recovery: every device sent, none failed', async () => {
    const first = Array.from({ length: 10 }, (_, i) => `a${i}`);
    const second = Array.from({ length: 10 }, (_, i) => `b${i}`);
    // Round 1: the first half 200, the second 503; rounds 2–9: the outage; then Apple is back.
    const c = scripted((t, n) => (t.startsWith('a') || n > 9 ? OK : UNAVAILABLE));
    const actions = await rounds(60_000, 4).send(routed(c, ...first, ...second), { askedApple: false });
    expect(actions.filter((a) => a.kind === 'sent')).to.have.length(20);
  });

  it('a 429 naming no device reason decides nothing: a round of them is an outage, held until the hold ends', async () => {
    const c = client({ x: SHEDDING, y: UNAVAILABLE });
    const asked = { askedApple: false };
    const error = await rounds(0, 1).send(routed(c, 'x', 'y'), asked).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(GatewayUnavailableError);
    expect(asked.askedApple).to.equal(false);
  });

  it('a 429 naming no device reason in a round Apple decides spends an attempt like TooManyRequests', async () => {
    const c = client({ throttled: THROTTLED, shed: SHEDDING });
    const actions = await rounds(0, 1).send(routed(c, 'throttled', 'shed'), { askedApple: false });
    expect(actions).to.deep.equal([
      { kind: 'failed', reason: 'TooManyRequests' },
      { kind: 'failed', reason: 'HTTP429' },
    ]);
  });

  it('no answer never spends an attempt, even in a round Apple decides others', async () => {
    const c = scripted((t, n) => (t === 'throttled' ? THROTTLED : n <= 3 ? NO_ANSWER : OK));
    const actions = await rounds(60_000, 3).send(routed(c, 'throttled', 'lost'), { askedApple: false });
    expect(actions).to.deep.equal([{ kind: 'failed', reason: 'TooManyRequests' }, { kind: 'sent' }]);
  });

  it('held past the hold in a chunk Apple decided others of: the held devices end failed, not a second delivery of the rest', async () => {
    const c = client({ ok: OK, late: UNAVAILABLE });
    const asked = { askedApple: false };
    // The first round decides `ok` and spends one of `late`'s 4 attempts; the rest are outage rounds until the hold ends.
    const actions = await rounds(30, 4).send(routed(c, 'ok', 'late'), asked);
    expect(actions).to.deep.equal([{ kind: 'sent' }, { kind: 'failed', reason: 'ServiceUnavailable' }]);
    expect(asked.askedApple).to.equal(true);
  });

  it('a round with no decision while Apple decides another chunk of the sender is no outage: its 503s spend attempts', async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const attempts = new Map<string, number>();
    const c = {
      async send(messages: ApnsMessage[]) {
        return Promise.all(messages.map(async (m) => {
          attempts.set(m.token, (attempts.get(m.token) ?? 0) + 1);
          // The other chunk's answers land while this chunk's round is still out.
          await sleep(m.token === 'refused' ? 30 : 2);
          return { token: m.token, ...(m.token === 'refused' ? UNAVAILABLE : OK) };
        }));
      },
      async close() {},
    } as ApnsClient;
    const r = rounds(5000, 2);
    let done = false;
    const other = (async () => {
      while (!done) await r.send(routed(c, 'other'), { askedApple: false });
    })();
    const asked = { askedApple: false };
    const actions = await r.send(routed(c, 'refused'), asked).finally(() => (done = true));
    await other;
    expect(actions).to.deep.equal([{ kind: 'failed', reason: 'ServiceUnavailable' }]);
    expect(attempts.get('refused')).to.equal(2);
  });
});
