// Attacks on the anonymous app-facing calls: unbounded tags, and opens raised by
// installs that never received the send.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';

describe('api: hostile SDK calls', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let n = 0;
  const token = () => (++n).toString(16).padStart(64, '0');

  before(async () => {
    app = await makeApp(env.pool);
  });

  const register = (body: Record<string, unknown>) =>
    api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body });
  const open = (sendId: string, subscription: string) =>
    api.request('POST', `/api/v1/notifications/${sendId}/opened`, { body: { app_id: app.app.id, subscription_id: subscription } });
  const clicked = async (sendId: string) =>
    (await api.request('GET', `/api/v1/notifications/${sendId}`, { key: app.key })).body.clicked;

  it('refuses a tag value over 128 characters with a 422 naming the tag', async () => {
    const res = await register({ token: token(), tags: { level: 'x'.repeat(129) } });
    expect(res.status).to.equal(422);
    expect(res.body.errors).to.deep.equal(['tags.level is longer than 128 characters.']);
    expect((await register({ token: token(), tags: { level: 'x'.repeat(128) } })).status).to.equal(201);
  });

  it('answers a body with 30,000 bad tags with a short list of messages', async () => {
    const tags = Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`k${i}`, { bad: true }]));
    const res = await register({ token: token(), tags });
    expect(res.status).to.equal(422);
    expect(res.body.errors.length).to.be.at.most(10);
  });

  it('counts no open from an install that was not in a list send', async () => {
    const inside = (await register({ token: token() })).body.id;
    const outside = (await register({ token: token() })).body.id;
    const send = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, include_subscription_ids: [inside] } });
    expect((await open(send.body.id, outside)).status).to.equal(200);
    expect(await clicked(send.body.id)).to.equal(0);
    await open(send.body.id, inside);
    expect(await clicked(send.body.id)).to.equal(1);
  });

  it('counts no open from an install outside an external-id send', async () => {
    const inside = (await register({ token: token(), external_id: 'alice' })).body.id;
    const outside = (await register({ token: token(), external_id: 'mallory' })).body.id;
    const send = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, include_external_ids: ['alice'] } });
    await open(send.body.id, outside);
    expect(await clicked(send.body.id)).to.equal(0);
    await open(send.body.id, inside);
    expect(await clicked(send.body.id)).to.equal(1);
  });

  it('counts no open from an install that does not match a tag send, or came after it', async () => {
    const [pro, free] = await addDevices(env.pool, app.app.id, [{ tags: { plan: 'pro-open' } }, { tags: { plan: 'free' } }]);
    const send = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, tag: { key: 'plan', relation: '=', value: 'pro-open' } } });
    expect(send.status).to.equal(202);
    const [late] = await addDevices(env.pool, app.app.id, [{ tags: { plan: 'pro-open' } }]);
    await open(send.body.id, free);
    await open(send.body.id, late);
    expect(await clicked(send.body.id)).to.equal(0);
    await open(send.body.id, pro);
    expect(await clicked(send.body.id)).to.equal(1);
  });
});
