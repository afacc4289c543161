// FCM's rounds (the loop of gateway-rounds.ts, as Apple's): what waits on FCM without spending
// attempts (no answer; a quota 429; a 5xx in a round in which FCM decides no device, whatever the
// chunk's earlier rounds had: issue 37), what spends them (a 5xx in a round in which FCM decides
// others), and the hand-back when the hold is over.
// The client here is a scripted FcmClient (our port), not a stand-in for Google: fcm-sim covers that.
import { expect } from 'chai';
import pino from 'pino';
import type { FcmClient, FcmMessage, FcmResult } from '../core/fcm/types.js';
import { createSenderMetrics } from './metrics.js';
import { FcmRounds } from './fcm-rounds.js';
import { GatewayUnavailableError } from './retry-rounds.js';

/** Answers each token from its list, one entry per attempt (the last one repeated). */
function scripted(answers: Record<string, Array<Omit<FcmResult, 'token'>>>): FcmClient & { asked: Record<string, number> } {
  const asked: Record<string, number> = {};
  return {
    asked,
    async send(messages: FcmMessage[]) {
      return messages.map((m) => {
        const list = answers[m.token];
        const n = (asked[m.token] = (asked[m.token] ?? 0) + 1);
        return { token: m.token, ...list[Math.min(n, list.length) - 1] };
      });
    },
    async close() {},
  };
}

const rounds = (gatewayHoldMs: number) =>
  new FcmRounds({ logger: pino({ level: 'silent' }), metrics: createSenderMetrics(), settings: { maxAttempts: 3, gatewayHoldMs, backoff: { baseMs: 1, maxMs: 1 } }, stopping: () => false });
const messages = (...tokens: string[]) => tokens.map((token) => ({ token, body: '{}' }));
const UNAVAILABLE = { status: 503, errorCode: 'UNAVAILABLE' };
const OK = { status: 200 };

describe('FCM rounds', () => {
  it('503 for every device of the chunk, five times, then 200: waited out without spending attempts, all sent', async () => {
    const c = scripted({ a: [UNAVAILABLE, UNAVAILABLE, UNAVAILABLE, UNAVAILABLE, UNAVAILABLE, OK], b: [UNAVAILABLE, UNAVAILABLE, UNAVAILABLE, UNAVAILABLE, UNAVAILABLE, OK] });
    const asked = { askedApple: false };
    expect(await rounds(60_000).send(c, messages('a', 'b'), asked)).to.deep.equal([{ kind: 'sent' }, { kind: 'sent' }]);
    expect(c.asked).to.deep.equal({ a: 6, b: 6 });
    expect(asked.askedApple).to.equal(true);
  });

  it('a device FCM keeps refusing with 503 while it decides others in the same rounds ends failed after maxAttempts (3)', async () => {
    // Each round FCM decides one other device: ok1 in round 1, ok2 in round 2, ok3 in round 3.
    const c = scripted({ ok1: [OK], ok2: [UNAVAILABLE, OK], ok3: [UNAVAILABLE, UNAVAILABLE, OK], busy: [UNAVAILABLE] });
    expect(await rounds(60_000).send(c, messages('ok1', 'ok2', 'ok3', 'busy'), { askedApple: false })).to.deep.equal([
      { kind: 'sent' },
      { kind: 'sent' },
      { kind: 'sent' },
      { kind: 'failed', reason: 'UNAVAILABLE' },
    ]);
    expect(c.asked.busy).to.equal(3);
  });

  it('first half 200, second half meets a total 503 outage, then recovery: every device sent, none failed (issue 37)', async () => {
    const first = Array.from({ length: 10 }, (_, i) => `a${i}`);
    const second = Array.from({ length: 10 }, (_, i) => `b${i}`);
    // Round 1: the first half 200, the second 503; rounds 2-9: the outage; then FCM is back.
    const outage = [...Array.from({ length: 9 }, () => UNAVAILABLE), OK];
    const c = scripted(Object.fromEntries([...first.map((t) => [t, [OK]]), ...second.map((t) => [t, outage])]));
    const actions = await rounds(60_000).send(c, messages(...first, ...second), { askedApple: false });
    expect(actions.filter((a) => a.kind === 'sent')).to.have.length(20);
    expect(second.map((t) => c.asked[t])).to.deep.equal(second.map(() => 10));
  });

  it('held past the hold in a chunk FCM decided others of: the held devices end failed, not a second delivery of the rest', async () => {
    const c = scripted({ ok: [OK], out: [UNAVAILABLE] });
    const asked = { askedApple: false };
    expect(await rounds(0).send(c, messages('ok', 'out'), asked)).to.deep.equal([{ kind: 'sent' }, { kind: 'failed', reason: 'UNAVAILABLE' }]);
    expect(asked.askedApple).to.equal(true);
  });

  it('a round with no decision while FCM decides another chunk of the sender is no outage: its 503s spend attempts', async () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const asked: Record<string, number> = {};
    const c: FcmClient = {
      async send(m: FcmMessage[]) {
        return Promise.all(
          m.map(async ({ token }) => {
            asked[token] = (asked[token] ?? 0) + 1;
            // The other chunk's answers land while this chunk's round is still out.
            await sleep(token === 'refused' ? 30 : 2);
            return { token, ...(token === 'refused' ? UNAVAILABLE : OK) };
          }),
        );
      },
      async close() {},
    };
    const r = rounds(5000);
    let done = false;
    const other = (async () => {
      while (!done) await r.send(c, messages('other'), { askedApple: false });
    })();
    const actions = await r.send(c, messages('refused'), { askedApple: false }).finally(() => (done = true));
    await other;
    expect(actions).to.deep.equal([{ kind: 'failed', reason: 'UNAVAILABLE' }]);
    expect(asked.refused).to.equal(3);
  });

  it('no answer at all is held whatever FCM decided, and never spends an attempt', async () => {
    const c = scripted({ ok: [OK], lost: [{ status: 0, errorCode: 'ConnectionError' }, { status: 0, errorCode: 'ConnectionError' }, { status: 0, errorCode: 'ConnectionError' }, { status: 0, errorCode: 'ConnectionError' }, OK] });
    expect(await rounds(60_000).send(c, messages('ok', 'lost'), { askedApple: false })).to.deep.equal([{ kind: 'sent' }, { kind: 'sent' }]);
    expect(c.asked.lost).to.equal(5);
  });

  it('a gateway out past the hold hands the chunk back uncounted (GatewayUnavailableError)', async () => {
    const c = scripted({ a: [UNAVAILABLE] });
    const asked = { askedApple: false };
    const error = await rounds(0).send(c, messages('a'), asked).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(GatewayUnavailableError).and.have.property('message', 'FCM gateway unavailable (UNAVAILABLE)');
    expect(asked.askedApple).to.equal(false);
  });

  it('decisions are final at once: unsubscribe, failed, stop', async () => {
    const c = scripted({ u: [{ status: 404, errorCode: 'UNREGISTERED' }], f: [{ status: 400, errorCode: 'INVALID_ARGUMENT' }], s: [{ status: 401, errorCode: 'THIRD_PARTY_AUTH_ERROR' }] });
    expect(await rounds(60_000).send(c, messages('u', 'f', 's'), { askedApple: false })).to.deep.equal([
      { kind: 'unsubscribe', reason: 'UNREGISTERED' },
      { kind: 'failed', reason: 'INVALID_ARGUMENT' },
      { kind: 'stop', reason: 'THIRD_PARTY_AUTH_ERROR' },
    ]);
    expect(c.asked).to.deep.equal({ u: 1, f: 1, s: 1 });
  });

  it('QUOTA_EXCEEDED waits even after FCM decided others: the project\'s rate, never the device\'s failure', async () => {
    const quota = { status: 429, errorCode: 'QUOTA_EXCEEDED' };
    const c = scripted({ ok: [OK], q: [quota, quota, quota, quota, quota, OK] });
    expect(await rounds(60_000).send(c, messages('ok', 'q'), { askedApple: false })).to.deep.equal([{ kind: 'sent' }, { kind: 'sent' }]);
    expect(c.asked.q).to.equal(6);
  });
});
