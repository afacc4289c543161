// Rate buckets through HTTP against the real Redis (contract "Rate limits", "Authentication" 4;
// DECISIONS "Limits and rate buckets"). Each test uses its own IP and keys, so buckets never leak
// between tests. Body rules that fail after the draw (422) are used to draw cheaply: every
// authenticated call draws even when it later fails a body rule.
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { useTestEnv } from '../env/index.js';
import { RedisBucketStore } from '../../core/buckets/redis-store.js';
import { BucketRateLimiter } from '../../api/rate-limit/bucket-limiter.js';
import { RATE_HEADERS, call, limiterRedis, listSend, makeApp, randomIp, segmentSend, startApi, type Answer, type RunningApi, type TestApp, ignoreIdleClientErrorsOnTeardown } from './helpers.js';

const env = useTestEnv();
ignoreIdleClientErrorsOnTeardown(env);

function policyNames(a: Answer): string[] {
  return [...String(a.headers.get('ratelimit-policy')).matchAll(/name="([a-z]+)"/g)].map((m) => m[1]!);
}

function expectRateHeaders(a: Answer): void {
  for (const h of RATE_HEADERS) expect(a.headers.get(h), `${h} on a ${a.status}`).to.be.a('string');
  expect(a.headers.get('ratelimit-limit')).to.equal(a.headers.get('x-ratelimit-limit'));
  expect(a.headers.get('ratelimit-remaining')).to.equal(a.headers.get('x-ratelimit-remaining'));
}

const BAD_THROTTLE = { throttle_rate_per_minute: 0 }; // 422 after the buckets are drawn

describe('rate buckets over HTTP (Redis)', function () {
  this.timeout(60_000);
  let redis: Redis;
  let api: RunningApi;
  let t: TestApp;
  let other: TestApp;

  before(async () => {
    redis = limiterRedis();
    const limiter = new BucketRateLimiter(new RedisBucketStore(redis), env.redisPrefix);
    api = await startApi(env, { rateLimiter: limiter });
    t = await makeApp(env.pool, { keyCount: 4 });
    other = await makeApp(env.pool, { keyCount: 1 });
  });
  after(async () => {
    await api?.close();
    redis?.disconnect();
  });

  it('puts the headers on a 200 send, naming ip and send', async () => {
    const a = await call(api.url, 'POST', '/api/v1/notifications', { key: t.keys[0], ip: randomIp(), body: listSend(t) });
    expect(a.status).to.equal(200);
    expectRateHeaders(a);
    expect(policyNames(a)).to.deep.equal(['ip', 'send']);
    expect(a.headers.get('ratelimit-policy')).to.equal('6000;w=60;burst=6000;name="ip", 50;w=1;burst=100;name="send"');
    // The closest to running out is the key's send bucket (100, one drawn).
    expect(a.headers.get('ratelimit-limit')).to.equal('100');
    expect(a.headers.get('ratelimit-remaining')).to.equal('99');
    expect(a.headers.get('ratelimit-reset')).to.equal('1');
    const unix = Number(a.headers.get('x-ratelimit-reset'));
    expect(unix).to.be.at.least(Math.floor(Date.now() / 1000) - 5).and.at.most(Math.ceil(Date.now() / 1000) + 5);
  });

  it('puts the headers on 4xx answers after the draw: 422, 404, and on a 401', async () => {
    const ip = randomIp();
    const invalid = await call(api.url, 'POST', '/api/v1/notifications', { key: t.keys[0], ip, body: listSend(t, BAD_THROTTLE) });
    expect(invalid.status).to.equal(422);
    expectRateHeaders(invalid);
    const missing = await call(api.url, 'GET', '/api/v1/notifications/999999', { key: t.keys[0], ip });
    expect(missing.status).to.equal(404);
    expectRateHeaders(missing);
    expect(policyNames(missing)).to.deep.equal(['ip', 'read']);
    const wrongQuery = await call(api.url, 'GET', `/api/v1/notifications/999999999?app_id=${other.app.id}`, { key: t.keys[0], ip });
    expect(wrongQuery.status).to.equal(404);
    expectRateHeaders(wrongQuery);
    const unauthenticated = await call(api.url, 'GET', '/api/v1/notifications/999999999', { key: 'hk_nope', ip });
    expect(unauthenticated.status).to.equal(401);
    expectRateHeaders(unauthenticated);
    expect(policyNames(unauthenticated)).to.deep.equal(['anonymous']);
  });

  it('a segment send draws ip, broadcast and audience in that order', async () => {
    const a = await call(api.url, 'POST', '/api/v1/notifications', { key: t.keys[0], ip: randomIp(), body: segmentSend(t, 'Active Users', BAD_THROTTLE) });
    expect(a.status).to.equal(422);
    expect(policyNames(a)).to.deep.equal(['ip', 'broadcast', 'audience']);
    expect(a.headers.get('ratelimit-policy')).to.include('30;w=60;burst=10;name="broadcast"').and.include('10;w=60;burst=10;name="audience"');
  });

  it('refuses the 41st read with a 429: Retry-After, body, and the refusing bucket\'s headers', async () => {
    const ip = randomIp();
    const key = t.keys[1]!;
    const before = Date.now() / 1000;
    // All at once, so the 20/s refill cannot keep up.
    const answers = await Promise.all(Array.from({ length: 80 }, () => call(api.url, 'GET', '/api/v1/notifications/999999999', { key, ip })));
    expect(answers.filter((a) => a.status === 404).length).to.be.at.least(40);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused, 'one read refused').to.not.equal(undefined);
    expectRateHeaders(refused);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).to.be.at.least(1);
    expect(refused.body.message).to.match(new RegExp(`retry after ${retryAfter} seconds`, 'i'));
    expect(refused.body.message, 'it names the refusing bucket and its rate').to.include('the read bucket allows 20 a second (bursts of 40)');
    expect(refused.body.errors).to.deep.equal([refused.body.message]);
    expect(refused.headers.get('ratelimit-limit')).to.equal('40');
    expect(refused.headers.get('ratelimit-remaining')).to.equal('0');
    expect(policyNames(refused)).to.deep.equal(['ip', 'read']);
    // X-RateLimit-Reset is now + Retry-After on a 429 (Redis time; one second of slack each side).
    const unix = Number(refused.headers.get('x-ratelimit-reset'));
    expect(unix).to.be.within(Math.floor(before) + retryAfter - 1, Math.ceil(Date.now() / 1000) + retryAfter + 1);
    // Buckets are per key: another key of the same app still reads.
    expect((await call(api.url, 'GET', '/api/v1/notifications/999999999', { key: t.keys[2], ip })).status).to.equal(404);
  });

  it('refuses list sends past the 100 a key holds; the send bucket is per key', async () => {
    const ip = randomIp();
    // All at once, so the 50/s refill cannot keep up; lower bounds only (no timing assertions).
    const answers = await Promise.all(Array.from({ length: 200 }, () =>
      call(api.url, 'POST', '/api/v1/notifications', { key: t.keys[3], ip, body: listSend(t, BAD_THROTTLE) })));
    const refused = answers.filter((a) => a.status === 429);
    expect(answers.filter((a) => a.status === 422).length).to.be.at.least(100);
    expect(refused.length).to.be.at.least(1);
    expect(refused[0]!.headers.get('ratelimit-limit')).to.equal('100');
    expect(policyNames(refused[0]!)).to.deep.equal(['ip', 'send']);
    expect((await call(api.url, 'POST', '/api/v1/notifications', { key: t.keys[0], ip, body: listSend(t, BAD_THROTTLE) })).status).to.equal(422);
  });

  it('the audience bucket is shared by two keys of one app, per segment', async () => {
    const app = await makeApp(env.pool, { keyCount: 2 });
    const [a, b] = app.keys as [string, string];
    const ip = randomIp();
    const send = (key: string, segment = 'Inactive Users') =>
      call(api.url, 'POST', '/api/v1/notifications', { key, ip, body: segmentSend(app, segment, BAD_THROTTLE) });
    for (let i = 0; i < 5; i++) expect((await send(a)).status).to.equal(422);
    for (let i = 0; i < 5; i++) expect((await send(b)).status).to.equal(422);
    const refused = await send(b);
    expect(refused.status).to.equal(429);
    expect(policyNames(refused)).to.deep.equal(['ip', 'broadcast', 'audience']); // refused by audience
    expect(Number(refused.headers.get('retry-after'))).to.be.at.least(1);
    // Another segment of the same app is another bucket; b's broadcast bucket still has tokens.
    expect((await send(b, 'Active Users')).status).to.equal(422);
    // Another app's same segment is another bucket too.
    expect((await call(api.url, 'POST', '/api/v1/notifications', { key: other.keys[0], ip, body: segmentSend(other, 'Inactive Users', BAD_THROTTLE) })).status).to.equal(422);
  });

  it('a send refused by its broadcast bucket leaves audience untouched', async () => {
    const app = await makeApp(env.pool, { keyCount: 2 });
    const [a, b] = app.keys as [string, string];
    const ip = randomIp();
    // Exhaust a's broadcast bucket on ten different tag audiences (one audience token each).
    for (let i = 0; i < 10; i++) {
      const body = { app_id: app.app.id, contents: { en: 'x' }, tag: { key: 'level', relation: '=', value: String(i) }, ...BAD_THROTTLE };
      expect((await call(api.url, 'POST', '/api/v1/notifications', { key: a, ip, body })).status).to.equal(422);
    }
    for (let i = 0; i < 3; i++) {
      const refused = await call(api.url, 'POST', '/api/v1/notifications', { key: a, ip, body: segmentSend(app, 'Active Users', BAD_THROTTLE) });
      expect(refused.status).to.equal(429);
      expect(policyNames(refused)).to.deep.equal(['ip', 'broadcast']); // refused by broadcast; audience not reached
    }
    // The segment's audience bucket is still full: key b gets all ten.
    for (let i = 0; i < 10; i++) {
      expect((await call(api.url, 'POST', '/api/v1/notifications', { key: b, ip, body: segmentSend(app, 'Active Users', BAD_THROTTLE) })).status, `send ${i + 1}`).to.equal(422);
    }
  });

  it('segment aliases share one audience bucket', async () => {
    const app = await makeApp(env.pool, { keyCount: 2 });
    const ip = randomIp();
    const names = ['All', 'All Subscribers', 'Subscribed Users'];
    for (let i = 0; i < 10; i++) {
      const body = segmentSend(app, names[i % 3], BAD_THROTTLE);
      expect((await call(api.url, 'POST', '/api/v1/notifications', { key: app.keys[i % 2], ip, body })).status).to.equal(422);
    }
    const refused = await call(api.url, 'POST', '/api/v1/notifications', { key: app.keys[0], ip, body: segmentSend(app, 'All', BAD_THROTTLE) });
    expect(refused.status).to.equal(429);
  });

  it('a wrong key draws only anonymous; the ip and key buckets are untouched', async () => {
    const ip = randomIp();
    for (let i = 0; i < 5; i++) {
      const a = await call(api.url, 'POST', '/api/v1/notifications', { key: `hk_wrong${i}`, ip, body: listSend(t) });
      expect(a.status).to.equal(401);
      expect(policyNames(a)).to.deep.equal(['anonymous']);
      expect(a.headers.get('ratelimit-remaining')).to.equal(String(119 - i));
    }
    const noHeader = await call(api.url, 'GET', '/api/v1/notifications/999999999', { ip });
    expect(noHeader.status).to.equal(401);
    expect(noHeader.headers.get('ratelimit-remaining')).to.equal('114');
    // 403: a valid key naming another app's app_id also draws only anonymous.
    const forbidden = await call(api.url, 'POST', '/api/v1/notifications', { key: t.keys[0], ip, body: listSend(other) });
    expect(forbidden.status).to.equal(403);
    expect(policyNames(forbidden)).to.deep.equal(['anonymous']);
    expect(forbidden.headers.get('ratelimit-remaining')).to.equal('113');
    const fresh = await makeApp(env.pool);
    const ok = await call(api.url, 'GET', '/api/v1/notifications/999999999', { key: fresh.keys[0], ip });
    expect(ok.status).to.equal(404);
    expect(ok.headers.get('ratelimit-remaining')).to.equal('39'); // read: first draw of this key
    const ipLeft = await redis.pttl(`${env.redisPrefix}rl:ip:${ip}`);
    expect(ipLeft).to.be.at.most(10); // one token drawn from ip (10 ms per token): only the valid call
  });

  it('anonymous holds 120 per address, then 429', async () => {
    const ip = randomIp();
    // All at once, so the refill (a token per 500 ms) cannot keep up; lower bounds only.
    const answers = await Promise.all(Array.from({ length: 160 }, () => call(api.url, 'GET', '/api/v1/notifications/999999999', { key: 'hk_bad', ip })));
    expect(answers.filter((a) => a.status === 401).length).to.be.at.least(120);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused, 'one call refused').to.not.equal(undefined);
    expect(policyNames(refused)).to.deep.equal(['anonymous']);
    expect(refused.headers.get('retry-after')).to.equal('1');
    expect(refused.body.message).to.match(/retry after 1 seconds/i);
    // Another address is another bucket.
    expect((await call(api.url, 'GET', '/api/v1/notifications/999999999', { key: 'hk_bad', ip: randomIp() })).status).to.equal(401);
  });

  it('the ip bucket is shared across keys and apps of one address', async () => {
    const ip = randomIp();
    // Empty the address's ip bucket (TAT 2 s beyond full: every draw is refused for about two
    // seconds, a margin wide enough for a loaded machine; no assertion depends on the clock).
    await redis.set(`${env.redisPrefix}rl:ip:${ip}`, String(Date.now() + 62_000), 'PX', 120_000);
    for (const key of [t.keys[0], other.keys[0]]) {
      const refused = await call(api.url, 'GET', '/api/v1/notifications/999999999', { key, ip });
      expect(refused.status).to.equal(429);
      expect(policyNames(refused)).to.deep.equal(['ip']); // refused by ip: the key's read bucket not reached
      expect(refused.headers.get('ratelimit-limit')).to.equal('6000');
    }
    // The same keys from another address are not limited.
    expect((await call(api.url, 'GET', '/api/v1/notifications/999999999', { key: other.keys[0], ip: randomIp() })).status).to.equal(404);
  });

  it('the SDK endpoints draw the per-address sdk bucket', async () => {
    const a = await call(api.url, 'POST', `/api/v1/apps/${t.app.id}/subscriptions`, { ip: randomIp(), body: { token: 'ab'.repeat(32) } });
    expect(a.status).to.be.oneOf([200, 201]);
    expectRateHeaders(a);
    expect(a.headers.get('ratelimit-policy')).to.equal('1200;w=60;burst=1200;name="sdk"');
  });
});
