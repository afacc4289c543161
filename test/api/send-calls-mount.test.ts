// The send group's calls through the one mount (issue 36; api/calls/mount.ts): the app a call
// names is checked before its buckets, a call that must name its app refuses none as another
// (exportEvents and exportSubscriptions: the client always sends app_id), a send's app_id that is
// not text is the body's 422 (not a 403), and a send draws its buckets once, from its body.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { makeApp, type TestApp } from '../support/apps.js';
import type { RateDraw, RateLimiter } from '../../api/shared/deps.js';

describe('api: the send calls through the one mount', () => {
  const env = useTestEnv();
  const draws: Array<Pick<RateDraw, 'bucket' | 'audience'>> = [];
  const limiter: RateLimiter = {
    drawAuthenticated: async ({ bucket, audience }) => {
      draws.push({ bucket, audience });
      return {};
    },
    drawAnonymous: async () => ({}),
  };
  const api = useTestApi(env, () => ({ rateLimiter: limiter }));
  let a: TestApp;

  before(async () => {
    a = await makeApp(env.pool);
  });
  beforeEach(() => {
    draws.length = 0;
  });

  it('exportSubscriptions and exportEvents without app_id are 403, drawing no class bucket', async () => {
    const exported = await api.request('POST', '/api/v1/players/csv_export', { key: a.key, body: {} });
    const events = await api.request('POST', '/api/v1/notifications/1/export_events', { key: a.key });
    expect([exported.status, events.status]).to.deep.equal([403, 403]);
    expect(draws).to.deep.equal([]);
  });

  it("a send whose app_id is not text is the body's 422, after its buckets", async () => {
    const res = await api.request('POST', '/api/v1/notifications', { key: a.key, body: { app_id: 5, contents: { en: 'x' }, include_subscription_ids: ['00000000-0000-4000-8000-000000000000'] } });
    expect(res.status).to.equal(422);
    expect(res.body.errors).to.include("app_id is required: the App ID of the key's app.");
    expect(draws).to.deep.equal([{ bucket: 'send', audience: undefined }]);
  });

  it('a segment send draws its buckets once, named by its body', async () => {
    const res = await api.request('POST', '/api/v1/notifications', { key: a.key, body: { app_id: a.app.id, contents: { en: 'x' }, included_segments: ['Subscribed Users'] } });
    expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 202]);
    expect(draws).to.deep.equal([{ bucket: 'broadcast', audience: 'segment:Subscribed Users' }]);
  });
});
