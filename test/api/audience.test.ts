// DECISIONS "Audiences": built-in segments, custom segments from the app, tag relations, list
// targets (unknown ids skipped later, duplicates counted once), and the 1,000,000 cap.
import { expect } from 'chai';
import pg from 'pg';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';

describe('api: audiences', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let ids: string[];
  const old = new Date(Date.now() - 30 * 86400_000);

  before(async () => {
    app = await makeApp(env.pool, {
      segments: [{ name: 'VIP', conditions: [{ key: 'plan', relation: '=', value: 'gold' }, { key: 'level', relation: '>', value: '5' }] }],
    });
    ids = await addDevices(env.pool, app.app.id, [
      { tags: { level: '10', plan: 'gold' }, external_id: 'u1' }, // active, VIP
      { tags: { level: '9', plan: 'gold' }, external_id: 'u2' }, // active, VIP ("9" < "10" as text, > as number)
      { tags: { level: '2', plan: 'gold' }, last_active: old }, // inactive
      { tags: { level: 'abc' }, last_active: null }, // inactive (never active)
      { tags: {}, external_id: 'u5' },
      { tags: { level: '50' }, subscribed: false, external_id: 'u6' }, // unsubscribed: never counted
    ]);
  });

  const estimate = async (target: Record<string, unknown>) => {
    const res = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, ...target } });
    expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 202]);
    return res.body.estimate as number;
  };

  it('counts the built-in segments and their aliases', async () => {
    expect(await estimate({ included_segments: ['Subscribed Users'] })).to.equal(5);
    expect(await estimate({ included_segments: ['All'] })).to.equal(5);
    expect(await estimate({ included_segments: ['Active Users'] })).to.equal(3);
    expect(await estimate({ included_segments: ['Inactive Users'] })).to.equal(2);
  });

  it("counts a custom segment of the app's spec", async () => {
    expect(await estimate({ included_segments: ['VIP'] })).to.equal(2);
  });

  it('refuses an unknown segment name with 422', async () => {
    const res = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, included_segments: ['Nope'] } });
    expect(res.status).to.equal(422);
  });

  const tagCases: [string, Record<string, string>, number][] = [
    ['= text', { key: 'plan', relation: '=', value: 'gold' }, 3],
    ['!= includes devices without the tag', { key: 'plan', relation: '!=', value: 'gold' }, 2],
    ['> numeric, and text order against a text tag value ("abc" > "9")', { key: 'level', relation: '>', value: '9' }, 2],
    ['< numeric', { key: 'level', relation: '<', value: '10' }, 2],
    ['> text order for a text value', { key: 'level', relation: '>', value: 'a' }, 1],
    ['exists', { key: 'level', relation: 'exists' }, 4],
    ['not_exists', { key: 'level', relation: 'not_exists' }, 1],
  ];
  for (const [name, tag, expected] of tagCases) {
    it(`matches tags: ${name}`, async () => {
      expect(await estimate({ tag })).to.equal(expected);
    });
  }

  it('accepts the official client filters form as a tag target', async () => {
    expect(await estimate({ filters: [{ field: 'tag', key: 'plan', relation: '=', value: 'gold' }] })).to.equal(3);
  });

  it('counts every distinct listed id, known or not, once', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(await estimate({ include_subscription_ids: [ids[0], ids[1], ids[0], unknown] })).to.equal(3);
    expect(await estimate({ include_external_ids: ['u1', 'u1', 'nobody'] })).to.equal(2);
    expect(await estimate({ include_aliases: { external_id: ['u1', 'u2'] } })).to.equal(2);
  });

  it('does not count devices registered after the send was accepted (snapshot mark)', async () => {
    const res = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, included_segments: ['All'] } });
    const mark = (await env.pool.query('SELECT audience_max_seq FROM sends WHERE id = $1', [res.body.id])).rows[0].audience_max_seq;
    const max = (await env.pool.query('SELECT max(seq)::bigint AS s FROM subscriptions WHERE app_id = $1', [app.app.id])).rows[0].s;
    expect(mark).to.equal(Number(max));
  });
});

describe('api: the 1,000,000-device cap', function () {
  this.timeout(180_000);
  const env = useTestEnv({ bus: true });
  const api = useTestApi(env);
  let app: TestApp;

  before(async function () {
    this.timeout(180_000);
    app = await makeApp(env.pool);
    // 1,000,001 devices; half of them tagged, so a tag send stays under the cap. Seeded on a
    // connection of its own, without the pool's statement and query timeouts (a loaded machine
    // can take longer than they allow for a million rows; that is the fixture, not Herald).
    const seed = new pg.Client({ connectionString: env.databaseUrl });
    await seed.connect();
    await seed.query(
      `INSERT INTO subscriptions (id, app_id, token, tags)
       SELECT gen_random_uuid(), $1, lpad(to_hex(g), 64, '0'), CASE WHEN g % 2 = 0 THEN '{"half":"1"}'::jsonb ELSE '{}'::jsonb END
         FROM generate_series(1, 1000001) AS g`,
      [app.app.id],
    ).finally(() => seed.end());
  });

  it('refuses a segment of 1,000,001 devices with 422 stating the size, recording nothing', async () => {
    const res = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, included_segments: ['Subscribed Users'] } });
    expect(res.status).to.equal(422);
    expect(res.body.errors[0]).to.contain('1,000,001').and.to.contain('at most 1,000,000');
    expect((await env.pool.query('SELECT count(*)::int AS n FROM sends')).rows[0].n).to.equal(0);
  });

  it('accepts a tag send of half of them', async () => {
    const res = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, tag: { key: 'half', relation: 'exists' } } });
    expect(res.status).to.equal(202);
    expect(res.body.estimate).to.equal(500_000);
  });
});
