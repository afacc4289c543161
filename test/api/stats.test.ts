// GET /api/v1/notifications/{id}: every field of the stats body, and 404 for unknown ids, other
// apps' ids, in-app cards and a mismatched app_id query parameter.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';

describe('api: send stats', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let other: TestApp;
  let sendId: number;

  before(async () => {
    app = await makeApp(env.pool);
    other = await makeApp(env.pool);
    await addDevices(env.pool, app.app.id, Array.from({ length: 10 }, () => ({})));
    const res = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, included_segments: ['All'] } });
    sendId = res.body.id;
  });

  const stats = (id: number | string, key = app.key, query = '') => api.request('GET', `/api/v1/notifications/${id}${query}`, { key });

  it('starts a segment send with processed 0 and remaining equal to total_recipients', async () => {
    const res = await stats(sendId);
    expect(res.status).to.equal(200);
    const { queued_at, send_after, message, ...rest } = res.body;
    expect(rest).to.deep.equal({
      id: sendId, app_id: app.app.id, status: 'queued', total_recipients: 10, processed: 0, remaining: 10,
      sent: 0, successful: 0, failed: 0, skipped: 0, clicked: 0, converted: 0, errored: 0,
      platform_delivery_stats: { ios: { successful: 0, failed: 0, errored: 0, converted: 0 }, android: { successful: 0, failed: 0, errored: 0, converted: 0 } },
      contents: { en: 'x' }, headings: {}, source: 'api', completed_at: null, throttle_rate_per_minute: null, canceled: false,
    });
    expect(Math.abs(queued_at - Date.now() / 1000)).to.be.below(120);
    expect(send_after).to.equal(queued_at);
    expect(message).to.match(/^Queued for 10 devices/);
  });

  it('derives processed, remaining, successful and converted from the counters', async () => {
    await env.pool.query("UPDATE sends SET status = 'sending', sent = 4, failed = 2, skipped = 1, clicked = 3 WHERE id = $1", [sendId]);
    const res = await stats(sendId);
    expect(res.body).to.include({ status: 'sending', processed: 7, remaining: 3, sent: 4, successful: 4, failed: 2, skipped: 1, clicked: 3, converted: 3, errored: 0 });
    // OneSignal's per-platform counts: no Android share, so all under ios; no received (no confirmed delivery).
    expect(res.body.platform_delivery_stats).to.deep.equal({ ios: { successful: 4, failed: 2, errored: 0, converted: 3 }, android: { successful: 0, failed: 0, errored: 0, converted: 0 } });
    // The Android share (migration 085) out of the same counters: iOS is the rest.
    await env.pool.query('UPDATE sends SET sent_android = 1, failed_android = 2, clicked_android = 3 WHERE id = $1', [sendId]);
    const split = await stats(sendId);
    expect(split.body.platform_delivery_stats).to.deep.equal({ ios: { successful: 3, failed: 0, errored: 0, converted: 0 }, android: { successful: 1, failed: 2, errored: 0, converted: 3 } });
    expect(split.body).to.include({ successful: 4, failed: 2, converted: 3 });
    await env.pool.query('UPDATE sends SET sent_android = 0, failed_android = 0, clicked_android = 0 WHERE id = $1', [sendId]);
  });

  it('shows remaining 0 once a send is finished, and leaves paused-out devices in neither count', async () => {
    await env.pool.query("UPDATE sends SET status = 'approved', sent = 4, failed = 0, skipped = 0, left_out = 6 WHERE id = $1", [sendId]);
    const res = await stats(sendId);
    expect(res.body).to.include({ status: 'approved', total_recipients: 10, processed: 4, remaining: 0 });
  });

  it('accepts the official client app_id query parameter', async () => {
    expect((await stats(sendId, app.key, `?app_id=${app.app.id}`)).status).to.equal(200);
    expect((await stats(sendId, app.key, `?app_id=${other.app.id}`)).status).to.equal(404);
  });

  it("answers 404 for an unknown id, another app's id, a malformed id and an in-app card", async () => {
    expect((await stats(999999)).status).to.equal(404);
    expect((await stats(sendId, other.key)).status).to.equal(404);
    expect((await stats('abc')).status).to.equal(404);
    expect((await stats('1e3')).status).to.equal(404);
    await env.pool.query("UPDATE sends SET kind = 'in_app' WHERE id = $1", [sendId]);
    const res = await stats(sendId);
    expect(res.status).to.equal(404);
    expect(res.body.errors).to.have.length(1);
  });
});
