// The app-facing calls (DECISIONS "app-facing interfaces"): register and update an install,
// report an open (clicked rises once per install).
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { makeApp, type TestApp } from '../support/apps.js';

describe('api: SDK subscriptions and opens', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  const token = 'ab'.repeat(32);

  before(async () => {
    app = await makeApp(env.pool);
  });

  const register = (body: Record<string, unknown>, appId = app.app.id) =>
    api.request('POST', `/api/v1/apps/${appId}/subscriptions`, { body });

  it('registers a new token with 201 and the same id with 200 afterwards', async () => {
    const first = await register({ token, external_id: 'user-1', language: 'fr', timezone: 'Europe/Paris', tags: { level: 10, vip: true } });
    expect(first.status).to.equal(201);
    expect(first.body.id).to.match(/^[0-9a-f-]{36}$/);
    const again = await register({ token: token.toUpperCase(), language: 'de' });
    expect(again.status).to.equal(200);
    expect(again.body.id).to.equal(first.body.id);
    const row = (await env.pool.query('SELECT * FROM subscriptions WHERE id = $1', [first.body.id])).rows[0];
    expect(row).to.include({ token, external_id: 'user-1', language: 'de', timezone: 'Europe/Paris', subscribed: true });
    expect(row.tags).to.deep.equal({ level: '10', vip: 'true' });
    expect(row.last_active).to.be.instanceOf(Date);
  });

  it('updates an install partially, removing a tag with null', async () => {
    const { body } = await register({ token: 'cd'.repeat(32), tags: { a: '1', b: '2' } });
    const res = await api.request('PATCH', `/api/v1/apps/${app.app.id}/subscriptions/${body.id}`, { body: { tags: { a: null, c: 3 }, subscribed: false } });
    expect(res.status).to.equal(200);
    const row = (await env.pool.query('SELECT tags, subscribed FROM subscriptions WHERE id = $1', [body.id])).rows[0];
    expect(row).to.deep.equal({ tags: { b: '2', c: '3' }, subscribed: false });
  });

  it('refuses bad fields with 422 and unknown apps or installs with 404', async () => {
    expect((await register({ token: 'not-hex!' })).status).to.equal(422);
    expect((await register({})).status).to.equal(422);
    expect((await register({ token, timezone: 'Mars/Olympus' })).status).to.equal(422);
    expect((await register({ token, language: 'english' })).status).to.equal(422);
    expect((await register({ token }, '00000000-0000-4000-8000-000000000000')).status).to.equal(404);
    expect((await register({ token }, 'nope')).status).to.equal(404);
    const res = await api.request('PATCH', `/api/v1/apps/${app.app.id}/subscriptions/00000000-0000-4000-8000-000000000000`, { body: { subscribed: false } });
    expect(res.status).to.equal(404);
  });

  it('counts an open once per install and send', async () => {
    const sub = (await register({ token: 'ef'.repeat(32) })).body.id;
    const sub2 = (await register({ token: 'fe'.repeat(32) })).body.id;
    const send = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, include_subscription_ids: [sub, sub2] } });
    const open = (subscription: string) =>
      api.request('POST', `/api/v1/notifications/${send.body.id}/opened`, { body: { app_id: app.app.id, subscription_id: subscription } });
    expect((await open(sub)).status).to.equal(200);
    expect((await open(sub)).status).to.equal(200);
    expect((await open(sub2)).status).to.equal(200);
    const stats = await api.request('GET', `/api/v1/notifications/${send.body.id}`, { key: app.key });
    expect(stats.body).to.include({ clicked: 2, converted: 2 });
  });

  it("refuses an open for another app's send or an unknown install with 404", async () => {
    const other = await makeApp(env.pool);
    const send = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, include_subscription_ids: [] } });
    const sub = (await register({ token: '12'.repeat(32) })).body.id;
    const res = await api.request('POST', `/api/v1/notifications/${send.body.id}/opened`, { body: { app_id: other.app.id, subscription_id: sub } });
    expect(res.status).to.equal(404);
    const unknown = await api.request('POST', `/api/v1/notifications/${send.body.id}/opened`, { body: { app_id: app.app.id, subscription_id: '00000000-0000-4000-8000-000000000000' } });
    expect(unknown.status).to.equal(404);
  });

  it('records the build\'s environment from test_type and shows it, with the subscription state, to a keyed read', async () => {
    const dev = (await register({ token: '1d'.repeat(32), test_type: 1 })).body.id;
    const adHoc = (await register({ token: '2d'.repeat(32), test_type: 2, subscribed: false })).body.id;
    const store = (await register({ token: '3d'.repeat(32) })).body.id;
    const read = (id: string, key = app.key, appId = app.app.id) => api.request('GET', `/api/v1/apps/${appId}/subscriptions/${id}`, { key });
    const devView = await read(dev);
    expect(devView.status).to.equal(200);
    expect(devView.body).to.include({ id: dev, token: '1d'.repeat(32), environment: 'sandbox', subscribed: true, unsubscribed_reason: null });
    expect(Date.parse(devView.body.registered_at)).to.be.a('number').and.not.NaN;
    expect((await read(adHoc)).body).to.include({ environment: 'production', subscribed: false, unsubscribed_reason: 'app' });
    expect((await read(store)).body).to.include({ environment: null, subscribed: true });
    // test_type: null returns the install to the App's environment.
    expect((await api.request('PATCH', `/api/v1/apps/${app.app.id}/subscriptions/${dev}`, { body: { test_type: null } })).status).to.equal(200);
    expect((await read(dev)).body).to.include({ environment: null });

    const bad = await register({ token: '4d'.repeat(32), test_type: 3 });
    expect(bad.status).to.equal(422);
    expect(bad.body.errors).to.deep.equal(["test_type must be 1 (development build), 2 (ad hoc build) or null (the App's environment)."]);
    // The read needs the app's key; another app's key or an unknown id finds nothing.
    expect((await api.request('GET', `/api/v1/apps/${app.app.id}/subscriptions/${dev}`)).status).to.equal(401);
    const other = await makeApp(env.pool);
    expect((await read(dev, other.key, app.app.id)).status).to.equal(404);
    expect((await read(dev, other.key, other.app.id)).status).to.equal(404);
    expect((await read('00000000-0000-4000-8000-000000000000')).status).to.equal(404);
    expect((await read('nope')).status).to.equal(404);
  });
});
