// The official client's updateSubscription and deleteSubscription (issue 27). updateSubscription
// sends {"subscription": {...}}: each field it accepts changes what it names (the silent 200 of
// before is gone), and a field Herald cannot apply is a 422 naming it. deleteSubscription erases
// one install for good; its user stays.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { officialClient, refused } from '../support/onesignal.js';
import { makeApp, type TestApp } from '../support/apps.js';

describe('api: updateSubscription and deleteSubscription through the official client', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let client: OneSignal.DefaultApi;
  const clientFor = (key: string) => officialClient(api.url, key);
  const wrapped = (subscription: Record<string, unknown>) => Object.assign(new OneSignal.SubscriptionBody(), { subscription });
  const read = async (id: string) => (await api.request('GET', `/api/v1/apps/${app.app.id}/subscriptions/${id}`, { key: app.key })).body;

  before(async () => {
    app = await makeApp(env.pool);
    client = clientFor(app.key);
  });

  it('updateSubscription changes what it names: enabled, token, test_type', async () => {
    const made = await client.createUser(app.app.id, Object.assign(new OneSignal.User(), { identity: { external_id: 'ivy' }, subscriptions: [{ type: 'iOSPush', token: 'a1'.repeat(32) }] }));
    const id = made.subscriptions![0].id!;
    await client.updateSubscription(app.app.id, id, wrapped({ enabled: false }));
    expect(await read(id)).to.include({ subscribed: false, unsubscribed_reason: 'app' });
    await client.updateSubscription(app.app.id, id, wrapped({ type: 'iOSPush', token: 'B2'.repeat(32), enabled: true, test_type: 1 }));
    expect(await read(id)).to.include({ token: 'b2'.repeat(32), subscribed: true, environment: 'sandbox' });
    const user = await client.getUser(app.app.id, 'external_id', 'ivy');
    expect(user.subscriptions!.map((s) => [s.token, s.enabled, s.test_type])).to.deep.equal([['b2'.repeat(32), true, 1]]);
  });

  it('refuses a field it cannot apply with a 422 naming it, changing nothing', async () => {
    const id = (await api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token: 'c3'.repeat(32) } })).body.id;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ device_model: 'iPhone15,2' }, 'subscription.device_model is not a field Herald can change on an install (it keeps type, token, enabled and test_type).'],
      [{ enabled: false, notification_types: -2 }, 'subscription.notification_types is not a field Herald can change on an install (it keeps type, token, enabled and test_type).'],
      [{ type: 'AndroidPush' }, 'type cannot change: this install is iOSPush (delete it and register the token as AndroidPush).'],
      [{ type: 'Email' }, 'subscription.type must be iOSPush or AndroidPush: Herald delivers to iOS and Android installs only.'],
      [{ token: 'not-hex' }, 'subscription.token must be the APNs device token in hex, 8 to 200 digits (0-9, a-f).'],
      [{}, 'subscription names no field to change.'],
    ];
    for (const [body, message] of cases) {
      const r = await refused(client.updateSubscription(app.app.id, id, wrapped(body)));
      expect([r.code, r.body.errors[0]], JSON.stringify(body)).to.deep.equal([422, message]);
    }
    expect(await read(id)).to.include({ token: 'c3'.repeat(32), subscribed: true });
    const res = await api.request('PATCH', `/api/v1/apps/${app.app.id}/subscriptions/${id}`, { body: { subscription: { enabled: false }, tags: { a: '1' } } });
    expect([res.status, res.body.errors[0]]).to.deep.equal([422, 'tags is not a field Herald can change on an install (it keeps type, token, enabled and test_type).']);
  });

  it('deleteSubscription erases one install with its tokens and opens; its user stays', async () => {
    const made = await client.createUser(app.app.id, Object.assign(new OneSignal.User(), {
      identity: { external_id: 'joe' },
      subscriptions: [{ type: 'iOSPush', token: 'd4'.repeat(32) }, { type: 'iOSPush', token: 'e5'.repeat(32) }],
    }));
    const [gone, kept] = made.subscriptions!.map((s) => s.id!);
    await api.request('POST', `/api/v1/apps/${app.app.id}/live_activities/match-1/token`, { body: { subscription_id: gone, push_token: 'f6'.repeat(32) } });
    for (const type of ['voip', 'widgets']) {
      expect((await api.request('PUT', `/api/v1/apps/${app.app.id}/subscriptions/${gone}/push_tokens/${type}`, { body: { push_token: 'f7'.repeat(32) } })).status).to.equal(200);
    }
    const send = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, include_subscription_ids: [gone, kept] } });
    await api.request('POST', `/api/v1/notifications/${send.body.id}/opened`, { body: { app_id: app.app.id, subscription_id: gone } });

    const other = await makeApp(env.pool);
    expect((await refused(clientFor(other.key).deleteSubscription(app.app.id, gone))).code).to.equal(403);
    const res = await api.request('DELETE', `/api/v1/apps/${app.app.id}/subscriptions/${gone}`, { key: app.key });
    expect(res.status).to.equal(202);
    expect(res.body.erased).to.deep.equal({ installs: 1, aliases: 0, live_activity_tokens: 1, push_type_tokens: 2, opens: 1, sends_scrubbed: 1 });

    const user = await client.getUser(app.app.id, 'external_id', 'joe');
    expect(user.subscriptions!.map((s) => s.id)).to.deep.equal([kept]);
    const traces = await env.pool.query(
      `SELECT (SELECT count(*) FROM subscriptions WHERE id = $1)::int + (SELECT count(*) FROM live_activity_tokens WHERE subscription_id = $1)::int
            + (SELECT count(*) FROM opens WHERE subscription_id = $1)::int + (SELECT count(*) FROM sends WHERE request::text LIKE '%' || $1 || '%')::int AS n`,
      [gone],
    );
    expect(traces.rows[0].n).to.equal(0);
    expect((await refused(client.deleteSubscription(app.app.id, gone))).code).to.equal(404);
    await client.deleteSubscription(app.app.id, kept);
    expect((await client.getUser(app.app.id, 'external_id', 'joe')).subscriptions).to.deep.equal([]);
  });
});
