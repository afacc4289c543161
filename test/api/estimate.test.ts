// estimateNotificationRecipients (issue 30 point 2) through the official client
// @onesignal/node-onesignal with only its base server changed, against the real api and
// PostgreSQL: the count is the send's own estimate for the same body, nothing is recorded, the
// send's 422 sentences, tenancy and the buckets (`estimate` for an audience count, `read` for a
// list). POST /notifications/count-unsaved was matched by /notifications/:id and answered 405 before.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { startTestApi, useTestApi } from '../support/api-server.js';
import { officialClient, refused } from '../support/onesignal.js';
import { addDevices, makeApp, type TestApp } from '../support/apps.js';
import { MemoryBucketStore } from '../../core/buckets/memory-store.js';
import { BucketRateLimiter } from '../../api/rate-limit/bucket-limiter.js';
import { createKey } from '../../core/apps/keys.js';
import { BUCKETS } from '../../core/buckets/policy.js';

describe('api: estimateNotificationRecipients through the official client', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let client: OneSignal.DefaultApi;

  const request = (t: TestApp, fields: Record<string, unknown>) =>
    Object.assign(new OneSignal.EstimateNotificationRecipientsRequest(), { app_id: t.app.id, ...fields });
  const sendEstimate = async (fields: Record<string, unknown>) => {
    const res = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, ...fields } });
    expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 202]);
    return res.body.estimate as number;
  };
  const recorded = async (appId: string) => {
    const res = await env.pool.query(
      `SELECT (SELECT count(*) FROM sends WHERE app_id = $1)::int AS sends,
              (SELECT count(*) FROM outbox WHERE payload->>'appId' = $1::text)::int AS outbox,
              (SELECT count(*) FROM idempotency_keys WHERE app_id = $1)::int AS keys`,
      [appId],
    );
    return res.rows[0] as { sends: number; outbox: number; keys: number };
  };

  before(async () => {
    app = await makeApp(env.pool, { segments: [{ name: 'Gold', conditions: [{ key: 'plan', relation: '=', value: 'gold' }] }] });
    client = officialClient(api.url, app.key);
    await addDevices(env.pool, app.app.id, [
      { tags: { plan: 'gold' }, language: 'en', external_id: 'u1' },
      { tags: { plan: 'gold' }, language: 'fr', external_id: 'u2' },
      { tags: { plan: 'free' }, language: 'fr' },
      { tags: { plan: 'free', beta: '1' }, language: 'de' },
      { tags: { plan: 'gold' }, language: 'fr', subscribed: false },
    ]);
  });

  it('answers the count a send of the same audience records as its estimate (segments, excluded segments, filters, aliases)', async () => {
    const audiences: Array<[Record<string, unknown>, number]> = [
      [{ included_segments: ['Subscribed Users'] }, 4],
      [{ included_segments: ['Gold'] }, 2],
      [{ included_segments: ['Subscribed Users'], excluded_segments: ['Gold'] }, 2],
      [{ filters: [{ field: 'tag', key: 'plan', relation: '=', value: 'free' }] }, 2],
      [{ filters: [{ field: 'language', relation: '=', value: 'fr' }, { operator: 'OR' }, { field: 'tag', key: 'beta', relation: 'exists' }] }, 3],
      [{ include_aliases: { external_id: ['u1', 'u2', 'nobody'] } }, 3],
    ];
    for (const [fields, expected] of audiences) {
      const answer = await client.estimateNotificationRecipients(request(app, fields));
      expect(answer.count, JSON.stringify(fields)).to.equal(expected);
      expect(await sendEstimate(fields), JSON.stringify(fields)).to.equal(expected);
    }
  });

  it('records nothing: no send, no outbox row, no idempotency key, even with an Idempotency-Key', async () => {
    const t = await makeApp(env.pool);
    await addDevices(env.pool, t.app.id, [{ language: 'en' }, { language: 'en' }]);
    const before = await recorded(t.app.id);
    expect((await officialClient(api.url, t.key).estimateNotificationRecipients(request(t, { included_segments: ['Subscribed Users'] }))).count).to.equal(2);
    const keyed = await api.request('POST', '/api/v1/notifications/count-unsaved', {
      key: t.key,
      headers: { 'Idempotency-Key': 'estimate-1' },
      body: { app_id: t.app.id, included_segments: ['Subscribed Users'], contents: { en: 'x' } },
    });
    expect([keyed.status, keyed.body]).to.deep.equal([200, { count: 2 }]);
    expect(await recorded(t.app.id)).to.deep.equal(before);
    expect(before.sends + before.keys).to.equal(0);
  });

  it('refuses what the send refuses, with the send\'s 422 sentences', async () => {
    const viaClient: Array<Record<string, unknown>> = [
      {},
      { included_segments: ['No such segment'] },
      { included_segments: ['Gold'], filters: [{ field: 'tag', key: 'plan', relation: 'exists' }] },
      { filters: [{ field: 'tag', key: 'a', relation: 'time_elapsed_gt', value: '1' }] },
      { included_segments: ['Subscribed Users'], excluded_segments: ['No such segment'] },
      { include_aliases: { 'bad label!': ['x'] } },
    ];
    // The client drops fields it does not model (tag, include_player_ids): these go as raw calls.
    const raw: Array<Record<string, unknown>> = [
      { included_segments: ['Gold'], tag: { key: 'plan', relation: 'exists' } },
      { included_segments: 'Gold' },
      { include_player_ids: ['x'] },
    ];
    const asSend = async (fields: Record<string, unknown>) => {
      const send = await api.request('POST', '/api/v1/notifications', { key: app.key, body: { app_id: app.app.id, contents: { en: 'x' }, ...fields } });
      expect(send.status, JSON.stringify(fields)).to.equal(422);
      return send.body.errors as string[];
    };
    for (const fields of viaClient) {
      const estimate = await refused(client.estimateNotificationRecipients(request(app, fields)));
      expect([estimate.code, estimate.body.errors], JSON.stringify(fields)).to.deep.equal([422, await asSend(fields)]);
    }
    for (const fields of raw) {
      const estimate = await api.request('POST', '/api/v1/notifications/count-unsaved', { key: app.key, body: { app_id: app.app.id, ...fields } });
      expect([estimate.status, estimate.body.errors], JSON.stringify(fields)).to.deep.equal([422, await asSend(fields)]);
    }
    const noApp = await api.request('POST', '/api/v1/notifications/count-unsaved', { key: app.key, body: { included_segments: ['Gold'] } });
    expect([noApp.status, noApp.body.errors]).to.deep.equal([422, ["app_id is required: the App ID of the key's app."]]);
  });

  it("tenancy: another app's id in the body is a 403; another app's segment is unknown here", async () => {
    const other = await makeApp(env.pool, { segments: [{ name: 'Theirs', conditions: [] }] });
    expect((await refused(officialClient(api.url, other.key).estimateNotificationRecipients(request(app, { included_segments: ['Gold'] })))).code).to.equal(403);
    const theirs = await refused(client.estimateNotificationRecipients(request(app, { included_segments: ['Theirs'] })));
    expect(theirs.code).to.equal(422);
    expect(theirs.body.errors[0]).to.match(/^Unknown segment "Theirs"/);
  });

  it('a segment, tag or filters estimate draws the estimate bucket (429 past its burst, named in RateLimit-Policy); a list estimate draws read', async () => {
    const limited = await startTestApi(env, { rateLimiter: new BucketRateLimiter(new MemoryBucketStore(), 'estimate-test:') });
    try {
      const { key: readKey } = await createKey(env.pool, app.app.id, { scope: 'read' });
      const estimate = (fields: Record<string, unknown>) =>
        limited.request('POST', '/api/v1/notifications/count-unsaved', { key: readKey, body: { app_id: app.app.id, ...fields } });
      const policy = `${BUCKETS.estimate.rate};w=${BUCKETS.estimate.windowSeconds};burst=${BUCKETS.estimate.burst};name="estimate"`;
      // A read key may estimate; the burst is shared by every audience body (segment, tag, filters).
      const bodies: Array<Record<string, unknown>> = [
        { included_segments: ['Gold'] },
        { tag: { key: 'plan', relation: '=', value: 'gold' } },
        { filters: [{ field: 'tag', key: 'plan', relation: '=', value: 'free' }] },
      ];
      for (let i = 0; i < BUCKETS.estimate.burst; i++) {
        const res = await estimate(bodies[i % bodies.length]);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        expect(res.headers.get('ratelimit-policy')).to.contain(policy);
        expect(res.headers.get('ratelimit-policy')).not.to.contain('name="read"');
      }
      const refused = await estimate({ included_segments: ['Gold'] });
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('ratelimit-policy')).to.contain(policy);
      expect(refused.body.message).to.match(/^Too many requests: the estimate bucket allows 30 a minute \(bursts of 10\)\./);
      // A list is at most 500 ids: still a read, and the spent estimate bucket does not refuse it.
      const list = await estimate({ include_aliases: { external_id: ['u1', 'u2'] } });
      expect([list.status, list.body]).to.deep.equal([200, { count: 2 }]);
      expect(list.headers.get('ratelimit-policy')).to.contain('name="read"');
      expect(list.headers.get('ratelimit-policy')).not.to.contain('name="estimate"');
    } finally {
      await limited.close();
    }
  });
});
