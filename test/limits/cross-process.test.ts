// Two `herald api` processes on one Redis and one PostgreSQL: buckets and idempotency keys are
// shared by every replica (ARCHITECTURE invariants), nothing lives in one process's memory.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { call, makeApp, listSend, randomIp, segmentSend, spawnApi, type TestApp, ignoreIdleClientErrorsOnTeardown } from './helpers.js';

const env = useTestEnv();
ignoreIdleClientErrorsOnTeardown(env);

describe('limits across two api processes', function () {
  this.timeout(120_000);
  let a: Awaited<ReturnType<typeof spawnApi>>;
  let b: Awaited<ReturnType<typeof spawnApi>>;
  let t: TestApp;

  before(async () => {
    [a, b] = await Promise.all([spawnApi(env), spawnApi(env)]);
    t = await makeApp(env.pool, { keyCount: 6, devices: 3 });
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('a bucket exhausted on one process is exhausted on the other', async () => {
    const ip = randomIp();
    const key = t.keys[5]!;
    // Ten broadcasts on ten tag audiences through A empty the key's broadcast bucket (a token per 2 s).
    for (let i = 0; i < 10; i++) {
      const body = { app_id: t.app.id, contents: { en: 'x' }, tag: { key: 'n', relation: '=', value: String(i) }, throttle_rate_per_minute: 0 };
      expect((await call(a.url, 'POST', '/api/v1/notifications', { key, ip, body })).status).to.equal(422);
    }
    const refused = await call(b.url, 'POST', '/api/v1/notifications', { key, ip, body: segmentSend(t, 'Active Users', { throttle_rate_per_minute: 0 }) });
    expect(refused.status).to.equal(429);
    expect(refused.headers.get('ratelimit-policy')).to.match(/name="broadcast"$/);
    expect(Number(refused.headers.get('retry-after'))).to.be.at.least(1);
    // And the audience bucket of the app's segment, drawn through A by another key, is seen by B.
    for (let i = 0; i < 10; i++) {
      const via = i % 2 ? a : b;
      expect((await call(via.url, 'POST', '/api/v1/notifications', { key: t.keys[i % 2], ip, body: segmentSend(t, 'Inactive Users', { throttle_rate_per_minute: 0 }) })).status).to.equal(422);
    }
    const audience = await call(b.url, 'POST', '/api/v1/notifications', { key: t.keys[2], ip, body: segmentSend(t, 'Inactive Users', { throttle_rate_per_minute: 0 }) });
    expect(audience.status).to.equal(429);
    expect(audience.headers.get('ratelimit-policy')).to.match(/name="audience"$/);
  });

  it('two processes racing the same idempotency key 50 times: exactly one send each time', async () => {
    const before = Number((await env.pool.query('SELECT count(*) FROM sends WHERE app_id = $1', [t.app.id])).rows[0].count);
    for (let round = 0; round < 50; round++) {
      const idem = `race-${round}-${randomBytes(4).toString('hex')}`;
      const key = t.keys[round % 5]!;
      const body = listSend(t, { contents: { en: `round ${round}` } });
      const answers = await Promise.all([a, b, a, b].map((api) =>
        call(api.url, 'POST', '/api/v1/notifications', { key, ip: randomIp(), body, headers: { 'Idempotency-Key': idem } })));
      const ok = answers.filter((x) => x.status === 200);
      // Every racer waits for the first (well under 5 s here), so all get the one send's answer.
      expect(answers.map((x) => x.status), `round ${round}`).to.deep.equal([200, 200, 200, 200]);
      expect(new Set(ok.map((x) => x.body.id)).size, `round ${round}`).to.equal(1);
      expect(answers.filter((x) => x.headers.get('idempotent-replay') === 'true')).to.have.length(3);
    }
    const after = Number((await env.pool.query('SELECT count(*) FROM sends WHERE app_id = $1', [t.app.id])).rows[0].count);
    expect(after - before).to.equal(50);
  });
});
