// DELETE /api/v1/notifications/{id} (OneSignal's cancel), on the pause's stop: a scheduled send
// ends draft at once; a running one leaves its unstarted chunks out and ends approved when some
// devices were reached; stats show canceled; a repeat is harmless; a finished send is a 409;
// another app's id a 404; the official client's cancelNotification works.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';

describe('api: cancel a send', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let other: TestApp;

  before(async () => {
    app = await makeApp(env.pool);
    other = await makeApp(env.pool);
    await addDevices(env.pool, app.app.id, Array.from({ length: 10 }, () => ({})));
  });

  const send = async (extra: Record<string, unknown> = {}) =>
    (await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, included_segments: ['All'], ...extra } })).body.id as number;
  const cancel = (id: number, key = app.key) => api.request('DELETE', `/api/v1/notifications/${id}?app_id=${app.app.id}`, { key });
  const stats = async (id: number) => (await api.request('GET', `/api/v1/notifications/${id}`, { key: app.key })).body;

  it('ends a scheduled send as a draft at once, never to fire', async () => {
    const id = await send({ send_after: new Date(Date.now() + 3600_000).toISOString() });
    const res = await cancel(id);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ success: true });
    const s = await stats(id);
    expect(s).to.include({ status: 'draft', canceled: true, sent: 0, remaining: 0 });
    expect(s.completed_at).to.be.a('number');
    expect(s.message).to.equal('Canceled before any device was reached; 10 devices were not sent and will not be.');
  });

  it('stops a running send: chunks not started are left out, and it ends approved with the devices reached', async () => {
    const id = await send();
    // As if the planner made two chunks and a sender finished the first (4 sent).
    await env.pool.query(`UPDATE sends SET status = 'sending', chunks_total = 2, chunks_done = 1, sent = 4 WHERE id = $1`, [id]);
    await env.pool.query(
      `INSERT INTO send_chunks (send_id, chunk, planned, state, sent, finished_at) VALUES ($1, 0, 5, 'done', 4, now()), ($1, 1, 5, 'planned', 0, NULL)`,
      [id],
    );
    expect((await cancel(id)).status).to.equal(200);
    const s = await stats(id);
    expect(s).to.include({ status: 'approved', canceled: true, sent: 4, remaining: 0 });
    expect(s.message).to.equal('Sent to 4 devices before it was canceled; 6 devices were not sent and will not be.');
    const chunk = await env.pool.query(`SELECT state FROM send_chunks WHERE send_id = $1 AND chunk = 1`, [id]);
    expect(chunk.rows[0].state).to.equal('left_out');
  });

  it('a queued send not yet planned ends draft; repeating the cancel changes nothing', async () => {
    const id = await send();
    expect((await cancel(id)).status).to.equal(200);
    const first = await stats(id);
    expect(first).to.include({ status: 'draft', canceled: true });
    expect((await cancel(id)).status).to.equal(200);
    expect(await stats(id)).to.deep.equal(first);
  });

  it("answers 409 for a finished send and 404 for another app's or an unknown id", async () => {
    const id = await send({ tag: { key: 'none', relation: 'exists' }, included_segments: undefined });
    const done = await cancel(id);
    expect(done.status).to.equal(409);
    expect(done.body.errors[0]).to.contain('already finished (approved)');
    const mine = await send({ send_after: new Date(Date.now() + 3600_000).toISOString() });
    expect((await cancel(mine, other.key)).status).to.equal(404);
    expect((await cancel(999999)).status).to.equal(404);
    expect((await stats(mine)).canceled).to.equal(false);
  });

  it("works with the official client's cancelNotification", async () => {
    const id = await send({ send_after: new Date(Date.now() + 3600_000).toISOString() });
    const client = new OneSignal.DefaultApi(OneSignal.createConfiguration({
      restApiKey: app.key,
      baseServer: new OneSignal.ServerConfiguration(`${api.url}/api/v1`, {}),
    }));
    const res = await client.cancelNotification(app.app.id, String(id));
    expect(res.success).to.equal(true);
    expect((await stats(id)).canceled).to.equal(true);
  });
});
