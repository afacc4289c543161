// Our APNs client (core/apns) against the simulator: result mapping, token refresh,
// transport failures and recovery, several connections.
import { expect } from 'chai';
import { createLeanApnsClient, createNodeApnClient, type ApnsClient, type ApnsClientOptions, type ApnsMessage } from '../../core/apns/index.js';
import { PAYLOAD, TEAM_ID, TOPIC, hexToken, startSimWithKey, type SimFixture } from './helpers.js';
import { PUSH_TYPES } from '../../core/payload/push-types.js';

const CONTENT_CHANGED = JSON.stringify({ aps: { 'content-changed': true } });

// The lean transport retries a stream the peer never processed (above GOAWAY's last-stream-id);
// node-apn answers it ConnectionError and leaves the retry to the sender.
const FACTORIES = [
  { adapter: 'lean transport (createApnsClient, the default)', createApnsClient: createLeanApnsClient, retriesAfterGoaway: true },
  { adapter: '@parse/node-apn adapter', createApnsClient: createNodeApnClient, retriesAfterGoaway: false },
];

for (const { adapter, createApnsClient, retriesAfterGoaway } of FACTORIES) describe(`core/apns ${adapter} against apns-sim`, function () {
  let f: SimFixture;
  const clients: ApnsClient[] = [];

  function client(opts: ApnsClientOptions = {}): ApnsClient {
    const c = createApnsClient(
      { credentials: { kind: 'token', keyP8: f.key.privateKeyP8, keyId: f.key.keyId, teamId: TEAM_ID }, topic: TOPIC, environment: 'sandbox', url: f.sim.url, ca: f.ca },
      opts,
    );
    clients.push(c);
    return c;
  }

  const msg = (token: string, extra: Partial<ApnsMessage> = {}): ApnsMessage => ({ token, payload: PAYLOAD, ...extra });

  before(async function () {
    f = await startSimWithKey();
  });

  after(async function () {
    await Promise.all(clients.map((c) => c.close()));
    await f.sim.close();
  });

  beforeEach(function () {
    f.sim.reset();
    f.sim.setRules([]);
  });

  it('maps every answer to a result, in the order of the messages', async function () {
    f.sim.setRules([
      { prefix: 'bad', status: 400 },
      { prefix: 'bb0e', status: 410, timestamp: 1700000000000 },
      { prefix: 'b05e', status: 429 },
      { prefix: '5000', status: 500 },
      { prefix: '5030', status: 503 },
      { prefix: 'f0bd', status: 403, reason: 'Forbidden' },
    ]);
    const ok = hexToken(1);
    const results = await client().send([
      msg(ok, { apnsId: '00000000-0000-4000-8000-0000000000aa', priority: 10, pushType: 'alert', expiration: 0, collapseId: 'c1' }),
      msg('bad1'),
      msg('bb0e1'),
      msg('b05e1'),
      msg('50001'),
      msg('50301'),
      msg('f0bd1'),
      msg(hexToken(2), { payload: JSON.stringify({ aps: { alert: 'x'.repeat(4100) } }) }),
    ]);
    const strip = results.map(({ apnsId, ...rest }) => rest);
    expect(strip).to.deep.equal([
      { token: ok, status: 200 },
      { token: 'bad1', status: 400, reason: 'BadDeviceToken' },
      { token: 'bb0e1', status: 410, reason: 'Unregistered', timestamp: 1700000000000 },
      { token: 'b05e1', status: 429, reason: 'TooManyRequests' },
      { token: '50001', status: 500, reason: 'InternalServerError' },
      { token: '50301', status: 503, reason: 'ServiceUnavailable' },
      { token: 'f0bd1', status: 403, reason: 'Forbidden' },
      { token: hexToken(2), status: 413, reason: 'PayloadTooLarge' },
    ]);
    expect(results[0].apnsId).to.equal('00000000-0000-4000-8000-0000000000aa');
    expect(results.every((r) => typeof r.apnsId === 'string')).to.equal(true);
    // No retries inside the client for 429/5xx: one attempt each.
    expect(f.sim.attempts('b05e1')).to.equal(1);
    expect(f.sim.attempts('50301')).to.equal(1);
    const [delivered] = f.sim.deliveries(ok);
    expect(delivered.headers).to.include({ 'apns-topic': TOPIC, 'apns-push-type': 'alert', 'apns-priority': '10', 'apns-expiration': '0', 'apns-collapse-id': 'c1' });
    expect(delivered.payload).to.equal(PAYLOAD);
  });

  it('sends every push type with a token of its own on its topic, as Apple documents it (issue 29)', async function () {
    const typed: Array<[ApnsMessage['pushType'], Partial<ApnsMessage>, string]> = [
      ['voip', { priority: 10 }, PAYLOAD],
      ['location', { priority: 5 }, PAYLOAD],
      ['complication', {}, PAYLOAD],
      ['pushtotalk', { priority: 10, expiration: 0 }, PAYLOAD],
      ['widgets', {}, CONTENT_CHANGED],
      ['controls', { priority: 10, expiration: 0 }, CONTENT_CHANGED],
    ];
    const results = await client().send(typed.map(([pushType, extra, payload], i) => msg(hexToken(40 + i), { pushType, payload, ...extra })));
    expect(results.map((r) => r.status)).to.deep.equal(typed.map(() => 200));
    typed.forEach(([pushType], i) => {
      expect(f.sim.deliveries(hexToken(40 + i))[0].headers).to.include({ 'apns-push-type': pushType, 'apns-topic': TOPIC + PUSH_TYPES[pushType!].topicSuffix });
    });
  });

  it('renews the provider token on ExpiredProviderToken and retries that message once', async function () {
    f.sim.setRules([
      { prefix: 'e1', status: 403, reason: 'ExpiredProviderToken', times: 1 },
      { prefix: 'e2', status: 403, reason: 'ExpiredProviderToken', times: 5 },
    ]);
    const results = await client().send([msg('e1aa'), msg('e2aa')]);
    expect(results.map(({ apnsId, ...r }) => r)).to.deep.equal([
      { token: 'e1aa', status: 200 },
      { token: 'e2aa', status: 403, reason: 'ExpiredProviderToken' },
    ]);
    expect(f.sim.attempts('e1aa')).to.equal(2);
    expect(f.sim.attempts('e2aa')).to.equal(2);
  });

  it('gives status 0 StreamReset for a reset stream, the others on the connection still succeed', async function () {
    f.sim.setRules([{ prefix: 'd0', action: 'reset-stream' }]);
    const c = client({ connections: 1 });
    const results = await c.send([msg(hexToken(1)), msg('d0aa'), msg(hexToken(2))]);
    expect(results.map((r) => [r.status, r.reason])).to.deep.equal([[200, undefined], [0, 'StreamReset'], [200, undefined]]);
    expect(f.sim.stats().connections).to.equal(1);
  });

  it(retriesAfterGoaway ? 'retries a stream above GOAWAY\'s last-stream-id on a new connection' : 'gives status 0 ConnectionError after a GOAWAY and reconnects for the next send', async function () {
    f.sim.setRules([{ prefix: 'd1', action: 'goaway', times: 1 }]);
    const c = client({ connections: 1 });
    const first = await c.send([msg('d1aa')]);
    if (retriesAfterGoaway) {
      expect(first.map(({ apnsId, ...r }) => r)).to.deep.equal([{ token: 'd1aa', status: 200 }]);
      expect(f.sim.attempts('d1aa')).to.equal(2);
      expect(f.sim.stats().connections).to.equal(2);
      return;
    }
    expect(first).to.deep.equal([{ token: 'd1aa', status: 0, reason: 'ConnectionError' }]);
    const second = await c.send([msg('d1aa'), msg(hexToken(3))]);
    expect(second.map((r) => r.status)).to.deep.equal([200, 200]);
    expect(f.sim.stats().connections).to.equal(2);
  });

  it('gives status 0 Timeout when no answer comes in time', async function () {
    f.sim.setRules([{ prefix: 'a1', delayMs: 1500 }]);
    const c = client({ requestTimeoutMs: 200 });
    const [result] = await c.send([msg('a1aa')]);
    expect(result).to.deep.equal({ token: 'a1aa', status: 0, reason: 'Timeout' });
  });

  it('gives status 0 ConnectionError when nothing listens', async function () {
    const c = createApnsClient({ credentials: { kind: 'token', keyP8: f.key.privateKeyP8, keyId: f.key.keyId, teamId: TEAM_ID }, topic: TOPIC, environment: 'sandbox', url: 'https://127.0.0.1:1', ca: f.ca });
    clients.push(c);
    const results = await c.send([msg(hexToken(1)), msg(hexToken(2))]);
    expect(results.map((r) => [r.status, r.reason])).to.deep.equal([[0, 'ConnectionError'], [0, 'ConnectionError']]);
  });

  it('spreads streams over several connections', async function () {
    const c = client({ connections: 3, maxConcurrentStreams: 10 });
    const results = await c.send(Array.from({ length: 90 }, (_, i) => msg(hexToken(100 + i))));
    expect(results.every((r) => r.status === 200)).to.equal(true);
    const stats = f.sim.stats();
    expect(stats.connections).to.equal(3);
    const perConnection = Object.values(stats.byConnection);
    expect(perConnection).to.have.length(3);
    expect(perConnection.every((n) => n > 0)).to.equal(true);
    expect(perConnection.reduce((a, b) => a + b, 0)).to.equal(90);
  });

  it('queues messages beyond the pool capacity and answers them all', async function () {
    const c = client({ connections: 2, maxConcurrentStreams: 3 });
    const results = await c.send(Array.from({ length: 200 }, (_, i) => msg(hexToken(1000 + i))));
    expect(results.filter((r) => r.status === 200)).to.have.length(200);
    expect(results.map((r) => r.token)).to.deep.equal(Array.from({ length: 200 }, (_, i) => hexToken(1000 + i)));
  });

  it('answers ClientClosed after close()', async function () {
    const c = client();
    await c.send([msg(hexToken(1))]);
    await c.close();
    expect(await c.send([msg(hexToken(2))])).to.deep.equal([{ token: hexToken(2), status: 0, reason: 'ClientClosed' }]);
  });
});
