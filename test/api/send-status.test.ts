// The status decision and answers of the contract's tables: draft, approved, scheduled, queued,
// sending, and 402 with nothing recorded.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';

describe('api: send status and answers', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let ids: string[];
  const count = async () => (await env.pool.query('SELECT count(*)::int AS n FROM sends')).rows[0].n as number;

  before(async () => {
    app = await makeApp(env.pool);
    ids = await addDevices(env.pool, app.app.id, Array.from({ length: 30 }, () => ({ language: 'en' })));
  });

  const send = (extra: Record<string, unknown>, key = app.key, appId = app.app.id) =>
    api.request('POST', '/api/v1/notifications', { key, body: { app_id: appId, contents: { en: 'Hello' }, ...extra } });

  it('queues a segment send with an audience: 202, queued, sent 0, estimate', async () => {
    const res = await send({ included_segments: ['Subscribed Users'] });
    expect(res.status).to.equal(202);
    expect(res.body).to.include({ status: 'queued', sent: 0, failed: 0, skipped: 0, estimate: 30 });
    expect(res.body.id).to.be.a('number');
    expect(res.body.message).to.match(/30 devices/);
  });

  it('answers a list send with 200 sending', async () => {
    const res = await send({ include_subscription_ids: ids.slice(0, 3) });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'sending', sent: 0, estimate: 3 });
  });

  it('answers an empty audience with 200 approved, sent 0, and a message that no one was reached', async () => {
    const res = await send({ tag: { key: 'nobody', relation: 'exists' } });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'approved', sent: 0, estimate: 0 });
    expect(res.body.message).to.match(/reached no one/);
    const empty = await send({ include_external_ids: [] });
    expect(empty.status).to.equal(200);
    expect(empty.body.status).to.equal('approved');
  });

  it('answers a send with send_after with 200 scheduled, sent 0, estimate of today', async () => {
    const when = new Date(Date.now() + 3600_000).toISOString();
    const res = await send({ included_segments: ['Subscribed Users'], send_after: when });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'scheduled', sent: 0, estimate: 30 });
    const row = (await env.pool.query('SELECT send_after FROM sends WHERE id = $1', [res.body.id])).rows[0];
    expect(new Date(row.send_after).toISOString()).to.equal(when);
  });

  it('keeps a send of an app without push credentials as a draft and says why', async () => {
    const bare = await makeApp(env.pool, { credentials: false });
    await addDevices(env.pool, bare.app.id, [{}, {}]);
    const res = await send({ included_segments: ['Subscribed Users'] }, bare.key, bare.app.id);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'draft', sent: 0 });
    expect(res.body.message).to.match(/no push key or certificate/);
  });

  it('answers 402 for an app with an overdue invoice and records nothing', async () => {
    const late = await makeApp(env.pool, { overdue: true });
    const before = await count();
    const res = await send({ included_segments: ['Subscribed Users'] }, late.key, late.app.id);
    expect(res.status).to.equal(402);
    expect(res.body.errors).to.deep.equal(['Delivery is paused until the invoice for this app is paid.']);
    expect(await count()).to.equal(before);
  });

  it('records the send with source api and the validated request', async () => {
    const res = await send({ included_segments: ['Subscribed Users'], headings: { en: 'Title' } });
    const row = (await env.pool.query('SELECT source, status, total_recipients, request FROM sends WHERE id = $1', [res.body.id])).rows[0];
    expect(row).to.include({ source: 'api', status: 'queued', total_recipients: 30 });
    expect(row.request.headings).to.deep.equal({ en: 'Title' });
    expect(row.request.target).to.deep.equal({ kind: 'segment', segment: 'Subscribed Users' });
  });
});
