// Hostile bodies and parameters over HTTP: a prototype key never changes a send's audience, text
// PostgreSQL cannot store is a 422 naming the field wherever it comes in (send body, anonymous SDK
// calls, the list search), and a token another install holds is a 409, never a 500.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';

describe('api: untrusted input', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let ids: string[];

  before(async () => {
    app = await makeApp(env.pool);
    ids = await addDevices(env.pool, app.app.id, Array.from({ length: 5 }, () => ({})));
  });

  const sends = async () => Number((await env.pool.query('SELECT count(*) FROM sends WHERE app_id = $1', [app.app.id])).rows[0].count);
  const register = (body: Record<string, unknown>) => api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body });

  it('a list send with "__proto__": {"included_segments": …} is a 422 naming the key, and nothing is sent', async () => {
    const before = await sends();
    const rawBody = `{"__proto__": {"included_segments": ["Subscribed Users"]}, "app_id": "${app.app.id}", "include_subscription_ids": ["${ids[0]}"], "contents": {"en": "hi"}}`;
    const res = await api.request('POST', '/api/v1/notifications', { key: app.key, rawBody, headers: { 'content-type': 'application/json' } });
    expect(res.status).to.equal(422);
    expect(res.body.errors[0]).to.include('__proto__');
    expect(await sends()).to.equal(before);
  });

  it('U+0000 or an unpaired surrogate in a send body is a 422 naming the field', async () => {
    for (const [contents, field] of [[{ en: 'a\u0000' }, 'contents.en'], [{ en: 'b\uD83D' }, 'contents.en']] as const) {
      const res = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, include_subscription_ids: [ids[0]], contents } });
      expect(res.status, JSON.stringify(res.body)).to.equal(422);
      expect(res.body.errors[0]).to.match(new RegExp(`^${field.replace('.', '\\.')} contains`));
    }
  });

  it('U+0000 or an unpaired surrogate in an SDK call (external id, tag key, tag value) is a 422', async () => {
    const token = 'ab'.repeat(32);
    for (const body of [{ token, external_id: 'u\u0000' }, { token, tags: { ['k\u0000']: 'v' } }, { token, tags: { k: 'v\uDC00' } }]) {
      const res = await register(body);
      expect(res.status, JSON.stringify(body)).to.equal(422);
      expect(res.body.errors[0]).to.match(/U\+0000|surrogate/);
    }
  });

  it('U+0000 in the list search q is a 422 naming q', async () => {
    const res = await api.request('GET', `/api/v1/notifications?app_id=${app.app.id}&q=a%00b`, { key: app.key });
    expect(res.status).to.equal(422);
    expect(res.body.errors[0]).to.match(/^q contains U\+0000/);
  });

  it('a PATCH giving an install the token another install holds is a 409 naming the token', async () => {
    const a = (await register({ token: 'cd'.repeat(32) })).body.id;
    await register({ token: 'ce'.repeat(32) });
    const res = await api.request('PATCH', `/api/v1/apps/${app.app.id}/subscriptions/${a}`, { body: { token: 'ce'.repeat(32) } });
    expect(res.status).to.equal(409);
    expect(res.body.errors[0]).to.include('token');
  });
});
