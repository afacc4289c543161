// The app-facing Live Activity token calls, made as OneSignal's iOS SDK makes them, against the
// real PostgreSQL: update tokens per activity (set, replace, remove), push-to-start tokens per
// activity type, only for an install of the app, bounded per install, identity verification.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { MAX_TOKENS_PER_INSTALL } from '../../core/live-activities/tokens.js';
import { externalIdAuthHash, issueIdentitySecret } from '../../core/apps/identity.js';
import { AUTH_HASH_WRONG } from '../../api/routes/identity.js';

describe('api: Live Activity tokens (the SDK calls)', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let other: TestApp;
  let install: string;

  before(async () => {
    app = await makeApp(env.pool);
    other = await makeApp(env.pool);
    install = (await api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token: 'ab'.repeat(32) } })).body.id;
  });

  const tokens = async (kind: string) =>
    (await env.pool.query('SELECT activity, token FROM live_activity_tokens WHERE subscription_id = $1 AND kind = $2 ORDER BY activity', [install, kind])).rows;
  const setUpdate = (activity: string, body: Record<string, unknown>, appId = app.app.id) =>
    api.request('POST', `/api/v1/apps/${appId}/live_activities/${encodeURIComponent(activity)}/token`, { body });
  const setStart = (type: string, body: Record<string, unknown>, sub = install) =>
    api.request('PUT', `/api/v1/apps/${app.app.id}/activities/tokens/start/${type}/subscriptions/${sub}`, { body });

  it('sets, replaces and removes an update token per activity', async () => {
    const first = await setUpdate('order-42', { subscription_id: install, push_token: 'AA'.repeat(40), device_type: 0 });
    expect(first).to.include({ status: 200 });
    expect(first.body).to.deep.equal({ success: true });
    expect(await tokens('update')).to.deep.equal([{ activity: 'order-42', token: 'aa'.repeat(40) }]);
    await setUpdate('order-42', { subscription_id: install, push_token: 'bb'.repeat(40) });
    await setUpdate('match:7', { subscription_id: install, push_token: 'cc'.repeat(40) });
    expect(await tokens('update')).to.deep.equal([{ activity: 'match:7', token: 'cc'.repeat(40) }, { activity: 'order-42', token: 'bb'.repeat(40) }]);
    const removed = await api.request('DELETE', `/api/v1/apps/${app.app.id}/live_activities/order-42/token/${install}`);
    expect(removed.status).to.equal(200);
    expect(await tokens('update')).to.deep.equal([{ activity: 'match:7', token: 'cc'.repeat(40) }]);
    expect((await api.request('DELETE', `/api/v1/apps/${app.app.id}/live_activities/order-42/token/${install}`)).status).to.equal(404);
  });

  it('sets and removes a push-to-start token per activity type', async () => {
    expect((await setStart('DeliveryAttributes', { activity_token: 'dd'.repeat(40), device_type: 0 })).status).to.equal(200);
    expect(await tokens('start')).to.deep.equal([{ activity: 'DeliveryAttributes', token: 'dd'.repeat(40) }]);
    expect((await api.request('DELETE', `/api/v1/apps/${app.app.id}/activities/tokens/start/DeliveryAttributes/subscriptions/${install}`)).status).to.equal(200);
    expect(await tokens('start')).to.deep.equal([]);
  });

  it('refuses bad input with a 422 naming the field, and another app\'s or an unknown install with 404', async () => {
    const bad = async (res: Promise<{ status: number; body: any }>, message: string) => {
      const r = await res;
      expect(r.status, JSON.stringify(r.body)).to.equal(422);
      expect(r.body.errors).to.deep.equal([message]);
    };
    await bad(setUpdate('a', { subscription_id: install }), 'push_token is required.');
    await bad(setUpdate('a', { subscription_id: install, push_token: 'not hex' }), "push_token must be the Live Activity's APNs token in hex, 8 to 200 digits (0-9, a-f).");
    await bad(setUpdate('a', { subscription_id: install, push_token: 'a'.repeat(201) }), "push_token must be the Live Activity's APNs token in hex, 8 to 200 digits (0-9, a-f).");
    await bad(setStart('T', { activity_token: 'a'.repeat(7) }), "activity_token must be the Live Activity's APNs token in hex, 8 to 200 digits (0-9, a-f).");
    await bad(setUpdate('a', { subscription_id: 'nope', push_token: 'ab'.repeat(32) }), "subscription_id must be the install's Subscription ID (a UUID).");
    await bad(setUpdate('a', { subscription_id: install, push_token: 'ab'.repeat(32), device_type: 1 }), 'device_type must be 0 (iOS).');
    await bad(setUpdate('x'.repeat(129), { subscription_id: install, push_token: 'ab'.repeat(32) }), 'activity_id must be 1 to 128 printable characters.');
    await bad(setStart('Not-A-Type', { activity_token: 'ab'.repeat(32) }), 'activity_type must be the name of the ActivityAttributes type (letters, digits, _ and ., at most 128).');
    // Another app's id with this install, or an unknown install: nothing is stored.
    expect((await setUpdate('a', { subscription_id: install, push_token: 'ab'.repeat(32) }, other.app.id)).status).to.equal(404);
    expect((await setStart('T', { activity_token: 'ab'.repeat(32) }, '00000000-0000-4000-8000-000000000000')).status).to.equal(404);
    expect((await env.pool.query('SELECT count(*)::int AS n FROM live_activity_tokens WHERE app_id = $1', [other.app.id])).rows[0].n).to.equal(0);
  });

  it(`keeps at most ${MAX_TOKENS_PER_INSTALL} tokens per install, dropping the oldest`, async () => {
    for (let i = 0; i < MAX_TOKENS_PER_INSTALL + 5; i++) {
      expect((await setUpdate(`bulk-${String(i).padStart(3, '0')}`, { subscription_id: install, push_token: 'ee'.repeat(32) })).status).to.equal(200);
    }
    const kept = (await env.pool.query('SELECT activity FROM live_activity_tokens WHERE subscription_id = $1 ORDER BY activity', [install])).rows.map((r) => r.activity);
    expect(kept).to.have.length(MAX_TOKENS_PER_INSTALL);
    expect(kept).to.include('bulk-054').and.not.include('bulk-000').and.not.include('match:7');
  });

  it('asks an install with an external id for its identity hash when the app verifies identity', async () => {
    const verified = await makeApp(env.pool);
    const secret = await issueIdentitySecret(env.pool, verified.app.id, true);
    const hash = externalIdAuthHash(Buffer.from(secret, 'utf8'), 'user-9');
    const sub = (await api.request('POST', `/api/v1/apps/${verified.app.id}/subscriptions`, { body: { token: 'fa'.repeat(32), external_id: 'user-9', external_id_auth_hash: hash } })).body.id;
    const call = (body: Record<string, unknown>) => api.request('POST', `/api/v1/apps/${verified.app.id}/live_activities/a1/token`, { body: { subscription_id: sub, push_token: 'ab'.repeat(32), ...body } });
    expect((await call({})).status).to.equal(403);
    expect((await call({ external_id_auth_hash: hash })).status).to.equal(200);
  });

  it("refuses a body naming another external id with that id's valid hash: only the install's own id is proved", async () => {
    const verified = await makeApp(env.pool);
    const secret = Buffer.from(await issueIdentitySecret(env.pool, verified.app.id, true), 'utf8');
    const register = async (t: string, externalId: string) =>
      (await api.request('POST', `/api/v1/apps/${verified.app.id}/subscriptions`, { body: { token: t, external_id: externalId, external_id_auth_hash: externalIdAuthHash(secret, externalId) } })).body.id as string;
    const victim = await register('fb'.repeat(32), 'victim-1');
    await register('fc'.repeat(32), 'attacker-1');
    // The attacker knows the victim's Subscription ID and holds a valid hash of its own external id.
    const disguise = { external_id: 'attacker-1', external_id_auth_hash: externalIdAuthHash(secret, 'attacker-1') };
    const update = await api.request('POST', `/api/v1/apps/${verified.app.id}/live_activities/a1/token`, { body: { subscription_id: victim, push_token: 'ee'.repeat(32), ...disguise } });
    const start = await api.request('PUT', `/api/v1/apps/${verified.app.id}/activities/tokens/start/T/subscriptions/${victim}`, { body: { activity_token: 'ee'.repeat(32), ...disguise } });
    for (const res of [update, start]) {
      expect(res.status, JSON.stringify(res.body)).to.equal(403);
      expect(res.body.errors).to.deep.equal([AUTH_HASH_WRONG]);
    }
    expect((await env.pool.query('SELECT count(*)::int AS n FROM live_activity_tokens WHERE subscription_id = $1', [victim])).rows[0].n).to.equal(0);
  });
});
