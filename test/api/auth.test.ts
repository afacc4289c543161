// Contract "Authentication" and DECISIONS "Identity and auth": schemes, hashed keys, revoked keys,
// IP allow-lists, a key used for another app's app_id.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { waitFor } from '../support/wait.js';
import { hashKey, revokeKey } from '../../core/apps/keys.js';

describe('api: authentication', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let one: TestApp;
  let other: TestApp;
  const body = (appId: string) => ({ app_id: appId, contents: { en: 'Hi' }, include_subscription_ids: [] });

  before(async () => {
    one = await makeApp(env.pool);
    other = await makeApp(env.pool);
  });

  it('accepts Key, Bearer and Basic schemes, in any letter case', async () => {
    for (const header of [`Key ${one.key}`, `key ${one.key}`, `Bearer ${one.key}`, `BASIC ${one.key}`, `Basic ${Buffer.from(one.key).toString('base64')}`]) {
      const res = await api.request('POST', '/api/v1/notifications', { headers: { authorization: header }, body: body(one.app.id) });
      expect(res.status, header).to.equal(200);
    }
  });

  it('refuses a missing, malformed or unknown key with 401 and WWW-Authenticate: Key', async () => {
    const cases: Record<string, string | undefined> = {
      missing: undefined,
      malformed: 'Key',
      wrongScheme: `Token ${one.key}`,
      unknown: 'Key hk_ThisKeyDoesNotExist00000000000000000000',
    };
    for (const [name, header] of Object.entries(cases)) {
      const res = await api.request('POST', '/api/v1/notifications', { headers: header ? { authorization: header } : {}, body: body(one.app.id) });
      expect(res.status, name).to.equal(401);
      expect(res.headers.get('www-authenticate'), name).to.equal('Key');
      expect(res.body.errors).to.be.an('array').with.length.greaterThan(0);
    }
  });

  it('stores keys only as SHA-256 hashes', async () => {
    const rows = (await env.pool.query('SELECT hash FROM api_keys WHERE app_id = $1', [one.app.id])).rows;
    expect(rows).to.have.length(1);
    expect(Buffer.compare(rows[0].hash, hashKey(one.key))).to.equal(0);
    const dump = JSON.stringify((await env.pool.query('SELECT * FROM api_keys')).rows);
    expect(dump).not.to.contain(one.key.slice(3));
  });

  it('refuses a revoked key with 401 (within the cache lifetime)', async () => {
    const victim = await makeApp(env.pool);
    expect((await api.request('GET', '/api/v1/notifications/1', { key: victim.key })).status).to.equal(404);
    await revokeKey(env.pool, victim.app.id, victim.keyId);
    await waitFor('the revoked key refused with 401', async () => (await api.request('GET', '/api/v1/notifications/1', { key: victim.key })).status === 401, 10_000);
  });

  it('refuses a key used from outside its IP allow-list with 403, and accepts it from inside', async () => {
    const limited = await makeApp(env.pool, { allowIps: ['10.1.0.0/16', '2001:db8::/32'] });
    const from = (ip: string) =>
      api.request('POST', '/api/v1/notifications', { key: limited.key, headers: { 'x-forwarded-for': ip }, body: body(limited.app.id) });
    expect((await from('10.1.2.3')).status).to.equal(200);
    expect((await from('2001:db8::1')).status).to.equal(200);
    const outside = await from('10.2.0.1');
    expect(outside.status).to.equal(403);
    expect(outside.body.errors[0]).to.match(/IP address/);
  });

  it("refuses a send whose app_id is another app's with 403 and records nothing", async () => {
    const before = (await env.pool.query('SELECT count(*)::int AS n FROM sends')).rows[0].n;
    const res = await api.request('POST', '/api/v1/notifications', { key: one.key, body: body(other.app.id) });
    expect(res.status).to.equal(403);
    expect(res.body.errors[0]).to.match(/does not belong to the app/);
    expect((await env.pool.query('SELECT count(*)::int AS n FROM sends')).rows[0].n).to.equal(before);
  });

  it('never parses the body of an unauthenticated call', async () => {
    const res = await api.request('POST', '/api/v1/notifications', { rawBody: '{not json', headers: { 'content-type': 'application/json' } });
    expect(res.status).to.equal(401);
  });
});
