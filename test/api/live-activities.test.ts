// The start and update calls' front door on real PostgreSQL: the key's app only, every refusal a
// 422 naming the field and what is allowed (never a 5xx), the 4 KB limit on the exact payload,
// and the answers' shapes (the official client's success responses). Delivery is in
// test/delivery/live-activity-*.test.ts.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { makeApp, type TestApp } from '../support/apps.js';

describe('api: Live Activity start and update calls', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let other: TestApp;

  before(async () => {
    app = await makeApp(env.pool);
    other = await makeApp(env.pool);
  });

  const update = (body: unknown, activity = 'match-7', opts: { appId?: string; key?: string } = {}) =>
    api.request('POST', `/api/v1/apps/${opts.appId ?? app.app.id}/live_activities/${encodeURIComponent(activity)}/notifications`, { key: opts.key ?? app.key, body });
  const start = (body: unknown, type = 'MatchAttributes') =>
    api.request('POST', `/api/v1/apps/${app.app.id}/activities/activity/${encodeURIComponent(type)}`, { key: app.key, body });
  const startBody = { activity_id: 'match-7', event_attributes: { home: 'A' }, event_updates: { score: '0-0' }, contents: { en: 'Kick-off' }, included_segments: ['Subscribed Users'] };

  it('answers an update with {id} and a start with 201 {notification_id}, the send ids as text', async () => {
    const u = await update({ event: 'update', event_updates: { score: '1-0' } });
    expect(u.status).to.equal(200);
    expect(Object.keys(u.body)).to.deep.equal(['id']);
    expect(u.body.id).to.match(/^\d+$/);
    const s = await start(startBody);
    expect(s.status).to.equal(201);
    expect(Object.keys(s.body)).to.deep.equal(['notification_id']);
    expect(s.body.notification_id).to.match(/^\d+$/);
  });

  const refusedUpdates: Array<[string, unknown, string, string?]> = [
    ['no event', { event_updates: {} }, 'event is required: update or end.'],
    ['an unknown event', { event: 'pause', event_updates: {} }, 'event is required: update or end.'],
    ['no event_updates', { event: 'update' }, 'event_updates is required: an object with the activity\'s ContentState, such as {"score": "2-1"}.'],
    ['event_updates that is not an object', { event: 'update', event_updates: [1] }, 'event_updates is required: an object with the activity\'s ContentState, such as {"score": "2-1"}.'],
    ['a dismissal date on an update', { event: 'update', event_updates: {}, dismissal_date: 1_800_000_000 }, 'dismissal_date is only for event end.'],
    ['a stale date in milliseconds', { event: 'update', event_updates: {}, stale_date: 1_800_000_000_000 }, 'stale_date is a Unix time in whole seconds, such as 1767225600.'],
    ['a dismissal date that is not whole', { event: 'end', event_updates: {}, dismissal_date: 1.5 }, 'dismissal_date is a Unix time in whole seconds, such as 1767225600.'],
    ['priority 7', { event: 'update', event_updates: {}, priority: 7 }, 'priority of a Live Activity push is 5 or 10.'],
    ['a relevance score above 1', { event: 'update', event_updates: {}, ios_relevance_score: 2 }, 'ios_relevance_score is a number from 0 to 1.'],
    ['headings without contents', { event: 'update', event_updates: {}, headings: { en: 'T' } }, 'headings and ios_sound belong to the alert of the change: send contents with them.'],
    ['a sound without contents', { event: 'update', event_updates: {}, ios_sound: 'a.caf' }, 'headings and ios_sound belong to the alert of the change: send contents with them.'],
    ['ios_sound and sound that differ', { event: 'update', event_updates: {}, contents: { en: 'x' }, ios_sound: 'a.caf', sound: 'b.caf' }, 'ios_sound and sound differ: sound is the older name of ios_sound. Send one.'],
    ['a bad language', { event: 'update', event_updates: {}, contents: { english: 'x' } }, 'contents has "english", which is not a language code such as en, pt-BR or zh-Hans.'],
    ['a bad idempotency key', { event: 'update', event_updates: {}, idempotency_key: 'a b' }, 'Use a short idempotency key: letters, numbers, dot, or dash.'],
    ['an activity id too long', { event: 'update', event_updates: {} }, 'activity_id must be 1 to 128 printable characters.', 'x'.repeat(129)],
    ['a payload over 4 KB', { event: 'update', event_updates: { text: 'x'.repeat(4100) } }, 'This Live Activity push is larger than 4KB (event_updates, event_attributes and the texts together). It is not cut short.'],
  ];
  for (const [what, body, message, activity] of refusedUpdates) {
    it(`refuses an update with ${what}: 422 naming it`, async () => {
      const res = await update(body, activity);
      expect(res.status, JSON.stringify(res.body)).to.equal(422);
      expect(res.body.errors).to.deep.equal([message]);
    });
  }

  const refusedStarts: Array<[string, Record<string, unknown>, string, string?]> = [
    ['no audience', { ...startBody, included_segments: undefined }, 'Name one audience: included_segments, tag, include_subscription_ids or include_external_ids.'],
    ['two audiences', { ...startBody, include_subscription_ids: [] }, 'Name one audience only; this request names included_segments and include_subscription_ids.'],
    ['no contents', { ...startBody, contents: undefined }, 'contents is required: the message text keyed by language code, such as {"en": "Hello"}.'],
    ['no activity_id', { ...startBody, activity_id: undefined }, "activity_id is required: the id the app registers the new activity's update token under (text, at most 128 characters)."],
    ['an activity_id with a space', { ...startBody, activity_id: 'a b' }, 'activity_id must be 1 to 128 printable characters.'],
    ['no event_attributes', { ...startBody, event_attributes: undefined }, 'event_attributes is required: an object with the ActivityAttributes values of the activity to start.'],
    ['its own event_attributes.onesignal', { ...startBody, event_attributes: { home: 'A', onesignal: { activityId: 'other' } } }, "event_attributes.onesignal is Herald's to set: it carries activity_id to OneSignal's iOS SDK (OneSignalLiveActivityAttributeData). Leave it out."],
    ['event update', { ...startBody, event: 'update' }, 'event of a start is start (or absent).'],
    ['a dismissal date', { ...startBody, dismissal_date: 1_800_000_000 }, 'dismissal_date is only for event end.'],
    ['a sound that is not text', { ...startBody, sound: 123 }, 'sound must be text: the name of a sound file in the app (the older name of ios_sound).'],
    ['an unknown segment', { ...startBody, included_segments: ['Nobody'] }, 'Unknown segment "Nobody". Use Subscribed Users, Active Users, Inactive Users or a segment defined for this app.'],
    ['an activity type that is no Swift name', startBody, 'activity_type must be the name of the ActivityAttributes type (letters, digits, _ and ., at most 128).', 'Match-Attributes'],
  ];
  for (const [what, body, message, type] of refusedStarts) {
    it(`refuses a start with ${what}: 422 naming it`, async () => {
      const res = await start(JSON.parse(JSON.stringify(body)), type);
      expect(res.status, JSON.stringify(res.body)).to.equal(422);
      expect(res.body.errors).to.include(message);
    });
  }

  it('refuses a body that is not an object with 400, as every call', async () => {
    const res = await update([1]);
    expect(res.status).to.equal(400);
    expect(res.body.errors).to.deep.equal(['The request body must be a JSON object.']);
  });

  it("refuses another app's id in the path (403) and a call without a key (401); nothing is recorded", async () => {
    const before = (await env.pool.query('SELECT count(*)::int AS n FROM sends')).rows[0].n;
    expect((await update({ event: 'update', event_updates: {} }, 'm', { appId: other.app.id })).status).to.equal(403);
    expect((await update({ event: 'update', event_updates: {} }, 'm', { key: 'hk_nope' })).status).to.equal(401);
    expect((await env.pool.query('SELECT count(*)::int AS n FROM sends')).rows[0].n).to.equal(before);
  });
});
