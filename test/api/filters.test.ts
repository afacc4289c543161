// OneSignal's targeting as its client sends it, counted exactly on real PostgreSQL: several
// `filters` conditions (AND between neighbours, {"operator": "OR"} between groups) on tags,
// language and session times, and `excluded_segments` narrowing a segment, a filters target and a
// list. The estimate (the api's answer) and the planned chunks agree with a count by hand.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';
import { planNext } from '../../core/delivery/planner.js';
import { loadChunkDevices } from '../../core/delivery/chunks.js';
import { getApp } from '../../core/apps/app-store.js';

describe('api: filters and excluded_segments', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000);

  before(async () => {
    app = await makeApp(env.pool, { segments: [{ name: 'Gold', conditions: [{ key: 'plan', relation: '=', value: 'gold' }] }] });
    await addDevices(env.pool, app.app.id, [
      { tags: { level: '10', plan: 'gold' }, language: 'en', external_id: 'a', last_active: hoursAgo(1) },
      { tags: { level: '20' }, language: 'fr', external_id: 'b', last_active: hoursAgo(2) },
      { tags: { level: '3' }, language: 'en', external_id: 'c', last_active: hoursAgo(48) },
      { tags: { plan: 'gold' }, language: 'de', external_id: 'd', last_active: hoursAgo(200) }, // inactive (over 7 days)
      { tags: {}, external_id: 'e', last_active: null }, // no language, never active
      { tags: { level: '30' }, language: 'en', subscribed: false, external_id: 'f' },
    ]);
  });

  const post = (target: Record<string, unknown>) => api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, ...target } });
  const estimate = async (target: Record<string, unknown>) => {
    const res = await post(target);
    expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 202]);
    return res.body.estimate as number;
  };

  it('ANDs neighbouring conditions', async () => {
    // level > 5 and English: a only (b is French, c is level 3, f unsubscribed).
    expect(await estimate({ filters: [{ field: 'tag', key: 'level', relation: '>', value: '5' }, { field: 'language', relation: '=', value: 'en' }] })).to.equal(1);
  });

  it('ORs groups', async () => {
    // (level > 15) OR (language = de): b and d.
    expect(await estimate({ filters: [{ field: 'tag', key: 'level', relation: '>', value: '15' }, { operator: 'OR' }, { field: 'language', relation: '=', value: 'de' }] })).to.equal(2);
  });

  it('reads language != (no language counts as different) and session times', async () => {
    expect(await estimate({ filters: [{ field: 'language', relation: '!=', value: 'en' }, { field: 'tag', key: 'x', relation: 'not_exists' }] })).to.equal(3); // b, d, e
    // last session more than 24 hours ago: c and d (e has none: never "more than" anything).
    expect(await estimate({ filters: [{ field: 'last_session', relation: '>', hours_ago: '24' }, { field: 'tag', key: 'x', relation: 'not_exists' }] })).to.equal(2);
    expect(await estimate({ filters: [{ field: 'last_session', relation: '<', hours_ago: '24' }, { field: 'tag', key: 'x', relation: 'not_exists' }] })).to.equal(2); // a, b
  });

  it('excluded_segments narrows a segment and a filters target', async () => {
    expect(await estimate({ included_segments: ['Subscribed Users'] })).to.equal(5);
    expect(await estimate({ included_segments: ['Subscribed Users'], excluded_segments: ['Gold'] })).to.equal(3);
    expect(await estimate({ included_segments: ['Subscribed Users'], excluded_segments: ['Gold', 'Inactive Users'] })).to.equal(2); // b, c
    expect(await estimate({ filters: [{ field: 'tag', key: 'level', relation: 'exists' }, { operator: 'OR' }, { field: 'language', relation: '=', value: 'de' }], excluded_segments: ['Gold'] })).to.equal(2); // b, c
  });

  it('plans exactly the estimated devices of a filters send', async () => {
    const res = await post({ filters: [{ field: 'tag', key: 'level', relation: '>', value: '5' }, { operator: 'OR' }, { field: 'language', relation: '=', value: 'de' }], excluded_segments: ['Inactive Users'] });
    expect(res.status).to.equal(202);
    while (await planNext(env.pool));
    const planned = (await env.pool.query('SELECT coalesce(sum(planned), 0)::int AS n FROM send_chunks WHERE send_id = $1', [res.body.id])).rows[0].n;
    expect(res.body.estimate).to.equal(2); // a, b (d is inactive)
    expect(planned).to.equal(2);
  });

  it('excluded_segments narrows a list: the excluded installs are not loaded to be sent', async () => {
    const full = await getApp(env.pool, app.app.id);
    const req = { target: { kind: 'external_ids' as const, ids: ['a', 'b', 'd'], excluding: ['Gold'] } } as never;
    const { devices } = await loadChunkDevices(env.pool, full!, req, { fromSeq: null, toSeq: null, planned: 3, zone: undefined, entries: undefined } as never);
    expect(devices.map((d) => d.entry).sort()).to.deep.equal(['b']);
  });

  it('refuses a field no install records, naming it', async () => {
    const res = await post({ filters: [{ field: 'country', relation: '=', value: 'US' }, { operator: 'OR' }, { field: 'language', relation: '=', value: 'en' }] });
    expect(res.status).to.equal(422);
    expect(res.body.errors[0]).to.match(/^filters\[0\]\.field must be one of tag, language, last_session, first_session/);
  });
});
