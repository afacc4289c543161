// include_aliases with any label (issue 27), against the real api and PostgreSQL through the
// official client's createNotification: one label per send; external_id as before, onesignal_id
// and custom labels name users, so their installs; lists as the contract's (500 ids, 501 refused);
// unknown ids reported under errors.invalid_aliases.<label>, as OneSignal does; the estimate counts
// the ids given, as for any list.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { officialClient } from '../support/onesignal.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { LIMITS } from '../../core/validation/limits.js';

describe('api: include_aliases with any label', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let client: OneSignal.DefaultApi;
  let n = 0;
  const nextToken = () => (0xa11a5000 + ++n).toString(16).padStart(64, '0');
  const user = (body: Partial<OneSignal.User>) => Object.assign(new OneSignal.User(), body);
  const send = (include_aliases: unknown) =>
    api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, include_aliases } });

  before(async () => {
    app = await makeApp(env.pool);
    client = officialClient(api.url, app.key);
  });

  it('a custom label names users: the send counts its ids and reports the unknown ones under that label', async () => {
    await client.createUser(app.app.id, user({ identity: { crm: 'c-1' }, subscriptions: [{ type: 'iOSPush', token: nextToken() }, { type: 'iOSPush', token: nextToken() }] }));
    await client.createUser(app.app.id, user({ identity: { crm: 'c-2' }, subscriptions: [{ type: 'iOSPush', token: nextToken(), enabled: false }] }));
    const res = await send({ crm: ['c-1', 'c-2', 'c-404', 'c-1'] });
    expect(res.status).to.equal(200);
    expect(res.body.estimate).to.equal(3);
    // c-2's only install is unsubscribed: no subscribed install has it, as for external ids.
    expect(res.body.errors).to.deep.equal({ invalid_aliases: { crm: ['c-2', 'c-404'] } });
    const stored = await env.pool.query(`SELECT request->'target' AS target FROM sends WHERE id = $1`, [res.body.id]);
    expect(stored.rows[0].target).to.deep.include({ kind: 'aliases', label: 'crm', ids: ['c-1', 'c-2', 'c-404'] });
    // Through the official client too.
    const made = await client.createNotification(Object.assign(new OneSignal.Notification(), { app_id: app.app.id, contents: { en: 'x' }, include_aliases: { crm: ['c-1'] } }));
    expect(Number(made.id)).to.be.above(0);
  });

  it('onesignal_id names users by their own id; external_id is the list of include_external_ids', async () => {
    const made = await client.createUser(app.app.id, user({ identity: { external_id: 'e-1' }, subscriptions: [{ type: 'iOSPush', token: nextToken() }] }));
    const id = made.identity!.onesignal_id!;
    const missing = '00000000-0000-4000-8000-000000000000';
    const byId = await send({ onesignal_id: [id.toUpperCase(), missing] });
    expect([byId.status, byId.body.estimate, byId.body.errors]).to.deep.equal([200, 2, { invalid_aliases: { onesignal_id: [missing] } }]);
    const byExternal = await send({ external_id: ['e-1', 'e-404'] });
    expect([byExternal.status, byExternal.body.errors]).to.deep.equal([200, { invalid_aliases: { external_id: ['e-404'] } }]);
    const stored = await env.pool.query(`SELECT request->'target'->>'kind' AS kind FROM sends WHERE id = $1`, [byExternal.body.id]);
    expect(stored.rows[0].kind).to.equal('external_ids');
  });

  it("deleteUser takes its ids out of the sends of the same label only: another user's id of another label stays", async () => {
    await client.createUser(app.app.id, user({ identity: { crm: 'same-42' }, subscriptions: [{ type: 'iOSPush', token: nextToken() }] }));
    await client.createUser(app.app.id, user({ identity: { external_id: 'same-42' }, subscriptions: [{ type: 'iOSPush', token: nextToken() }] }));
    const byCrm = await send({ crm: ['same-42', 'c-keep'] });
    const byExternal = await send({ external_id: ['same-42'] });
    const erased = await api.request('DELETE', `/api/v1/apps/${app.app.id}/users/by/crm/same-42`, { key: app.key });
    expect([erased.status, erased.body.erased.sends_scrubbed]).to.deep.equal([200, 1]);
    const ids = async (id: number) => (await env.pool.query(`SELECT request->'target'->'ids' AS ids FROM sends WHERE id = $1`, [id])).rows[0].ids;
    expect(await ids(byCrm.body.id)).to.deep.equal(['c-keep']);
    expect(await ids(byExternal.body.id)).to.deep.equal(['same-42']);
  });

  it('an open counts for an install of a user the send named, and not for another install', async () => {
    const named = await client.createUser(app.app.id, user({ identity: { crm: 'open-1' }, subscriptions: [{ type: 'iOSPush', token: nextToken() }] }));
    const other = await client.createUser(app.app.id, user({ identity: { crm: 'open-2' }, subscriptions: [{ type: 'iOSPush', token: nextToken() }] }));
    const sent = await send({ crm: ['open-1'] });
    const open = (subscription_id: string) => api.request('POST', `/api/v1/notifications/${sent.body.id}/opened`, { body: { app_id: app.app.id, subscription_id } });
    expect((await open(other.subscriptions![0].id!)).status).to.equal(200);
    const clicked = async () => (await env.pool.query('SELECT clicked FROM sends WHERE id = $1', [sent.body.id])).rows[0].clicked;
    expect(await clicked()).to.equal(0);
    expect((await open(named.subscriptions![0].id!)).status).to.equal(200);
    expect(await clicked()).to.equal(1);
  });

  it('holds 500 ids, refuses 501 and every other shape with a 422 naming the field', async () => {
    const ids = (count: number) => Array.from({ length: count }, (_, i) => `id-${i}`);
    const longest = await send({ crm: ids(LIMITS.ids_per_list) });
    expect([longest.status, longest.body.estimate]).to.deep.equal([200, LIMITS.ids_per_list]);
    const cases: Array<[unknown, string]> = [
      [{ crm: ids(LIMITS.ids_per_list + 1) }, `include_aliases.crm holds at most ${LIMITS.ids_per_list} ids; this request has ${LIMITS.ids_per_list + 1}.`],
      [{ crm: ['a'], shop: ['b'] }, 'include_aliases names one alias label per send, such as {"external_id": [...]}; this request names 2.'],
      [{}, 'include_aliases names one alias label per send, such as {"external_id": [...]}; this request names 0.'],
      [{ 'bad label': ['a'] }, 'include_aliases: "bad label" is not an alias label (letters, digits, _ - . up to 64 characters, or onesignal_id).'],
      [{ crm: 'c-1' }, 'include_aliases.crm must be an array of ids.'],
      [{ crm: ['ok', ''] }, 'include_aliases.crm[1] is not an alias id of 1 to 128 characters.'],
      [{ crm: ['x'.repeat(129)] }, 'include_aliases.crm[0] is not an alias id of 1 to 128 characters.'],
      [{ crm: [7] }, 'include_aliases.crm[0] is not an alias id of 1 to 128 characters.'],
      [{ onesignal_id: ['not-a-uuid'] }, 'include_aliases.onesignal_id[0] is not a OneSignal ID (a UUID).'],
    ];
    for (const [aliases, message] of cases) {
      const res = await send(aliases);
      expect([res.status, res.body.errors?.[0]], JSON.stringify(aliases).slice(0, 80)).to.deep.equal([422, message]);
    }
    const longestId = await send({ crm: ['x'.repeat(128)] });
    expect(longestId.status).to.equal(200);
  });
});
