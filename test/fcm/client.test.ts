// The lean FCM client against fcm-sim (issue 39 points 2 and 5): one access token per App reused
// by every request, renewed before it expires and once on a 401 (never one per request), several
// HTTP/2 connections, and each FCM answer mapped to one gateway action (core/fcm/outcomes.ts).
import { expect } from 'chai';
import { createFcmClient, FcmAccessTokens, fcmActionFor, type FcmClient } from '../../core/fcm/index.js';
import { startFcmSim, type FcmSim } from '../../fcm-sim/index.js';
import { FCM_MAX_MESSAGE_BYTES, fcmMessageBytes } from '../../core/payload/fcm-size.js';
import { atSim, makeServiceAccount, messageBody, simCa } from './helpers.js';

describe('FCM client against fcm-sim', function () {
  this.timeout(30_000);
  const sa = makeServiceAccount('herald-test');
  let sim: FcmSim;
  let ca: string;
  const clients: FcmClient[] = [];

  before(async () => {
    sim = await startFcmSim({ accounts: [{ clientEmail: sa.account.clientEmail, projectId: sa.account.projectId, publicKey: sa.publicKey }], tokenLifetimeS: 40 });
    ca = await simCa(sim);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await sim?.close();
  });
  beforeEach(() => {
    sim.reset();
    sim.setRules([]);
  });

  function clientWith(tokens: FcmAccessTokens, projectId = sa.account.projectId, connections = 4): FcmClient {
    const c = createFcmClient({ projectId, url: sim.url, ca, tokens }, { connections });
    clients.push(c);
    return c;
  }
  const tokensOf = (opts: { now?: () => number } = {}) => new FcmAccessTokens(atSim(sa.account, sim), { ca, ...opts });

  it('sends 300 devices with one access token over four connections, each device once', async () => {
    const tokens = tokensOf();
    const results = await clientWith(tokens).send(Array.from({ length: 300 }, (_, i) => ({ token: `dev-${i}`, body: messageBody(`dev-${i}`) })));
    expect(results.map((r) => r.status)).to.deep.equal(new Array(300).fill(200));
    expect(results[0].name).to.match(/^projects\/herald-test\/messages\//);
    expect(tokens.minted).to.equal(1);
    expect(sim.stats().tokensMinted).to.deep.equal({ [sa.account.clientEmail]: 1 });
    expect(sim.stats().connections).to.equal(4);
    expect(sim.deliveries()).to.have.length(300);
    expect(sim.deliveries('dev-7')[0].message).to.deep.equal({ token: 'dev-7', notification: { title: 't', body: 'b' } });
  });

  it('renews the token before it expires, not after, and not per request', async () => {
    let now = Date.now();
    const tokens = tokensOf({ now: () => now });
    const client = clientWith(tokens);
    await client.send([{ token: 'a', body: messageBody('a') }]);
    const first = await tokens.current();
    // A 40 s token is renewed a quarter of its life before it ends: at 29 s it is still the one.
    now += 29_000;
    await client.send([{ token: 'b', body: messageBody('b') }]);
    expect(tokens.minted).to.equal(1);
    now += 2_000; // 31 s: inside the last quarter, still valid at FCM
    const results = await client.send([{ token: 'c', body: messageBody('c') }, { token: 'd', body: messageBody('d') }]);
    expect(results.map((r) => r.status)).to.deep.equal([200, 200]);
    expect(tokens.minted).to.equal(2);
    expect((await tokens.current()).value).to.not.equal(first.value);
  });

  it('renews once on a 401 and sends again; concurrent requests share the one renewal', async () => {
    const tokens = tokensOf();
    const client = clientWith(tokens);
    await client.send([{ token: 'warm', body: messageBody('warm') }]);
    sim.revokeAccessTokens();
    const results = await client.send(Array.from({ length: 50 }, (_, i) => ({ token: `r-${i}`, body: messageBody(`r-${i}`) })));
    expect(results.every((r) => r.status === 200)).to.equal(true);
    expect(tokens.minted).to.equal(2);
    expect(sim.stats().byStatus).to.deep.equal({ 200: 51, 401: 50 });
  });

  it('a 401 after a fresh token is the credentials refused: renewed once only, then stop', async () => {
    sim.setRules([{ prefix: 'unauth', status: 401, errorCode: '' }]);
    const tokens = tokensOf();
    const [r] = await clientWith(tokens).send([{ token: 'unauth-1', body: messageBody('unauth-1') }]);
    expect(r).to.include({ status: 401, errorCode: 'UNAUTHENTICATED' });
    expect(sim.attempts('unauth-1')).to.equal(2);
    expect(tokens.minted).to.equal(2);
    expect(fcmActionFor(r)).to.deep.equal({ kind: 'stop', reason: 'UNAUTHENTICATED' });
  });

  it('a token endpoint that refuses the assertion is the credentials refused; an unreachable one is held', async () => {
    const stranger = makeServiceAccount('herald-test', sa.account.clientEmail); // same account, another key
    const refused = createFcmClient({ projectId: 'herald-test', url: sim.url, ca, tokens: new FcmAccessTokens(atSim(stranger.account, sim), { ca }) });
    clients.push(refused);
    const [r] = await refused.send([{ token: 'x', body: messageBody('x') }]);
    expect(r).to.include({ status: 401, errorCode: 'TOKEN_REFUSED' });
    expect(fcmActionFor(r)).to.deep.equal({ kind: 'stop', reason: 'TOKEN_REFUSED' });
    const away = createFcmClient({ projectId: 'herald-test', url: sim.url, ca, tokens: new FcmAccessTokens({ ...sa.account, tokenUri: 'https://127.0.0.1:1/token' }, { ca }) });
    clients.push(away);
    const [h] = await away.send([{ token: 'y', body: messageBody('y') }]);
    expect(fcmActionFor(h)).to.deep.equal({ kind: 'hold', reason: 'TokenUnavailable', retryAfterMs: undefined });
    expect(sim.stats().requests).to.equal(0);
  });

  it('maps each FCM answer to one action', async () => {
    sim.setRules([
      { prefix: 'unreg', status: 404 },
      { prefix: 'mismatch', status: 403 },
      { prefix: 'invalid', status: 400 },
      { prefix: 'quota', status: 429, retryAfter: 7 },
      { prefix: 'unavail', status: 503, retryAfter: 2 },
      { prefix: 'internal', status: 500 },
      { prefix: 'tpa', status: 401 },
      { prefix: 'reset', action: 'reset-stream' },
    ]);
    const cases: Array<[string, object]> = [
      ['ok-1', { kind: 'sent' }],
      ['unreg-1', { kind: 'unsubscribe', reason: 'UNREGISTERED' }],
      ['mismatch-1', { kind: 'unsubscribe', reason: 'SENDER_ID_MISMATCH' }],
      ['invalid-1', { kind: 'failed', reason: 'INVALID_ARGUMENT' }],
      ['quota-1', { kind: 'hold', reason: 'QUOTA_EXCEEDED', retryAfterMs: 7000 }],
      ['unavail-1', { kind: 'hold', reason: 'UNAVAILABLE', retryAfterMs: 2000 }],
      ['internal-1', { kind: 'hold', reason: 'INTERNAL', retryAfterMs: undefined }],
      ['tpa-1', { kind: 'stop', reason: 'THIRD_PARTY_AUTH_ERROR' }],
      ['reset-1', { kind: 'hold', reason: 'StreamReset', retryAfterMs: undefined }],
    ];
    const tokens = tokensOf();
    const results = await clientWith(tokens).send(cases.map(([t]) => ({ token: t, body: messageBody(t) })));
    expect(results.map(fcmActionFor)).to.deep.equal(cases.map(([, a]) => a));
    // THIRD_PARTY_AUTH_ERROR is APNs' credential behind FCM: no renewal of our token for it.
    expect(sim.attempts('tpa-1')).to.equal(1);
    expect(tokens.minted).to.equal(1);
  });

  it('another project than the account\'s is PERMISSION_DENIED: the credentials refused', async () => {
    const [r] = await clientWith(tokensOf(), 'someone-else').send([{ token: 'p', body: messageBody('p') }]);
    expect(r).to.include({ status: 403, errorCode: 'PERMISSION_DENIED' });
    expect(fcmActionFor(r).kind).to.equal('stop');
  });

  it('the sim refuses what FCM refuses: non-string data, an unknown priority, a bad ttl (INVALID_ARGUMENT, failed)', async () => {
    const bad = [
      messageBody('d1', { data: { n: 1 } }),
      messageBody('d2', { android: { priority: 'URGENT' } }),
      messageBody('d3', { android: { ttl: '3600' } }),
      messageBody('d4', { data: { from: 'x' } }),
      messageBody('d5', { android: { notification: { color: 'FF0000' } } }),
    ];
    const results = await clientWith(tokensOf()).send(bad.map((body, i) => ({ token: `d${i + 1}`, body })));
    expect(results.map(fcmActionFor)).to.deep.equal(bad.map(() => ({ kind: 'failed', reason: 'INVALID_ARGUMENT' })));
    const good = await clientWith(tokensOf()).send([{ token: 'g', body: messageBody('g', { data: { n: '1' }, android: { priority: 'HIGH', ttl: '3600s', notification: { color: '#ff0000' } } }) }]);
    expect(good[0].status).to.equal(200);
  });

  it('the sim holds FCM\'s 4,096 bytes as fcmMessageBytes counts them: 4,096 sent with a 4,096-character token, 4,097 INVALID_ARGUMENT', async () => {
    const token = 'a:'.repeat(2048);
    const sized = (n: number) => {
      const message = { notification: { body: '' }, data: { custom: '{"i":"1"}' } };
      message.notification.body = 'x'.repeat(n - fcmMessageBytes(message));
      return JSON.stringify({ message: { token, ...message } });
    };
    const [at, over] = await clientWith(tokensOf()).send([{ token, body: sized(FCM_MAX_MESSAGE_BYTES) }, { token, body: sized(FCM_MAX_MESSAGE_BYTES + 1) }]);
    expect([at.status, over.status, over.errorCode]).to.deep.equal([200, 400, 'INVALID_ARGUMENT']);
    expect(sim.deliveries(token)[0].message.token).to.have.length(4096);
  });
});
