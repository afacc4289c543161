// Updating and ending a Live Activity end to end: installs register their activity's update token
// as OneSignal's iOS SDK does, the official client's updateLiveActivity (only its base server
// changed) → the api → the planner, chunks and transport of every send → the APNs simulator,
// which enforces Apple's rules for liveactivity pushes. Each case reads exactly Apple's headers
// and `aps` keys as the simulator received them; an end drops the activity's tokens once
// delivered; the send is recorded as kind live_activity and reads like any send.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import type { ApnsSim } from '../../apns-sim/index.js';
import { LIVE_ACTIVITY_APS_KEYS } from '../../apns-sim/apple-rules.js';
import type { TestApi } from '../support/api-server.js';
import { startDeliveryStack, token, waitFinal, type DeliveryStack, type TestApp } from './fixtures.js';

const THREE_DAYS = 259_200;

describe('delivery: Live Activity updates and ends through the official client', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let stack: DeliveryStack;
  let sim: ApnsSim;
  let api: TestApi;
  let app: TestApp;
  let key: string;
  let client: OneSignal.DefaultApi;
  const topic = 'com.example.laupdates.push-type.liveactivity';

  before(async () => {
    stack = await startDeliveryStack(env, 'laupdates');
    ({ sim, api, app, key, client } = stack);
  });
  after(() => stack?.close());
  beforeEach(() => sim.reset());

  /** An install registered as the SDK does, with the update token of `activity` (64 hex digits from `prefix`). */
  async function install(prefix: string, activity: string, fields: Record<string, unknown> = {}): Promise<{ id: string; laToken: string }> {
    const created = await api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token: token(`d${prefix}`, 1), ...fields } });
    expect(created.status).to.be.oneOf([200, 201]);
    const laToken = token(prefix, 1);
    const set = await api.request('POST', `/api/v1/apps/${app.app.id}/live_activities/${encodeURIComponent(activity)}/token`, {
      body: { subscription_id: created.body.id, push_token: laToken, device_type: 0 },
    });
    expect(set.status).to.equal(200);
    return { id: created.body.id, laToken };
  }

  const update = (activity: string, fields: Partial<OneSignal.UpdateLiveActivityRequest>) =>
    client.updateLiveActivity(app.app.id, activity, Object.assign(new OneSignal.UpdateLiveActivityRequest(), { name: 'score', event: 'update', event_updates: {}, ...fields }));

  /** What the simulator received for one token: its aps (only ActivityKit's keys) and headers. */
  function received(laToken: string) {
    const got = sim.deliveries(laToken);
    expect(got, 'one push to the token').to.have.length(1);
    expect(got[0].status).to.equal(200);
    const payload = JSON.parse(got[0].payload) as { aps: Record<string, unknown> };
    expect(Object.keys(payload), 'nothing outside aps').to.deep.equal(['aps']);
    expect(Object.keys(payload.aps).filter((k) => !LIVE_ACTIVITY_APS_KEYS.has(k))).to.deep.equal([]);
    const { 'apns-expiration': expiration, ...headers } = got[0].headers;
    return { aps: payload.aps, headers, expiration: Number(expiration) };
  }

  it("an update reaches each of the activity's tokens with Apple's headers and aps keys", async () => {
    const a = await install('a1', 'match-7', { language: 'en' });
    const b = await install('a2', 'match-7', { language: 'fr' });
    const other = await install('a3', 'match-8');
    const before = Math.floor(Date.now() / 1000);
    const res = await update('match-7', {
      event_updates: { home: 1, away: 0, minute: 37 },
      contents: { en: 'Goal for A', fr: 'But pour A' },
      headings: { en: 'A 1-0 B' },
      ios_sound: 'goal.caf',
      stale_date: before + 3600,
      ios_relevance_score: 0.8,
    });
    expect(res).to.be.instanceOf(OneSignal.UpdateLiveActivitySuccessResponse);
    const after = Math.ceil(Date.now() / 1000);
    const { final } = await waitFinal(env.pool, Number(res.id));
    expect(final).to.include({ total_recipients: 2, sent: 2, failed: 0, skipped: 0, status: 'approved' });

    const gotA = received(a.laToken);
    expect(gotA.headers).to.deep.equal({ 'apns-topic': topic, 'apns-push-type': 'liveactivity', 'apns-priority': '10' });
    expect(gotA.expiration - before).to.be.within(THREE_DAYS, THREE_DAYS + 60);
    const { timestamp, ...aps } = gotA.aps;
    expect(timestamp).to.be.a('number').within(before, after);
    expect(aps).to.deep.equal({
      event: 'update',
      'content-state': { home: 1, away: 0, minute: 37 },
      'stale-date': before + 3600,
      'relevance-score': 0.8,
      alert: { title: 'A 1-0 B', body: 'Goal for A', sound: 'goal.caf' },
    });
    // Each device in its own language; the title falls back to the default language's.
    expect(received(b.laToken).aps.alert).to.deep.equal({ title: 'A 1-0 B', body: 'But pour A', sound: 'goal.caf' });
    expect(sim.deliveries(other.laToken), "another activity's token").to.deep.equal([]);
    expect(sim.deliveries(token('da1', 1)), "the install's own device token").to.deep.equal([]);
  });

  it('reaches an install that turned notifications off: a Live Activity has its own switch', async () => {
    const a = await install('b9', 'parcel-5');
    const off = await api.request('PATCH', `/api/v1/apps/${app.app.id}/subscriptions/${a.id}`, { body: { subscribed: false } });
    expect(off.status).to.equal(200);
    const res = await update('parcel-5', { event_updates: { stop: 3 } });
    expect((await waitFinal(env.pool, Number(res.id))).final).to.include({ total_recipients: 1, sent: 1 });
    expect(received(a.laToken).aps['content-state']).to.deep.equal({ stop: 3 });
  });

  it('a silent update at priority 5: content-state only, no alert', async () => {
    const a = await install('b1', 'ride-1');
    const res = await update('ride-1', { event_updates: { eta: '4 min' }, priority: 5 });
    expect((await waitFinal(env.pool, Number(res.id))).final).to.include({ sent: 1 });
    const got = received(a.laToken);
    expect(got.headers).to.deep.equal({ 'apns-topic': topic, 'apns-push-type': 'liveactivity', 'apns-priority': '5' });
    expect(Object.keys(got.aps).sort()).to.deep.equal(['content-state', 'event', 'timestamp']);
  });

  it("an end carries its dismissal date and drops the activity's tokens once delivered; a later update reaches no one", async () => {
    const a = await install('c1', 'order-42');
    const b = await install('c2', 'order-42');
    const kept = await install('c3', 'order-43');
    const dismissal = Math.floor(Date.now() / 1000) + 900;
    const res = await update('order-42', { event: 'end', event_updates: { status: 'delivered' }, dismissal_date: dismissal });
    expect((await waitFinal(env.pool, Number(res.id))).final).to.include({ sent: 2, status: 'approved' });
    const { timestamp: _t, ...aps } = received(a.laToken).aps;
    expect(aps).to.deep.equal({ event: 'end', 'content-state': { status: 'delivered' }, 'dismissal-date': dismissal });
    expect(received(b.laToken).aps.event).to.equal('end');
    const left = await env.pool.query('SELECT activity FROM live_activity_tokens WHERE app_id = $1 AND kind = $2 ORDER BY activity', [app.app.id, 'update']);
    expect(left.rows.map((r) => r.activity)).to.not.include('order-42');
    expect(left.rows.map((r) => r.activity)).to.include('order-43');
    // The installs are untouched: only their ended activity's tokens went.
    const installs = await env.pool.query('SELECT count(*)::int AS n FROM subscriptions WHERE id = ANY($1::uuid[]) AND subscribed', [[a.id, b.id, kept.id]]);
    expect(installs.rows[0].n).to.equal(3);

    sim.reset();
    const again = await update('order-42', { event_updates: { status: 'late' } });
    const { final } = await waitFinal(env.pool, Number(again.id));
    expect(final).to.include({ total_recipients: 0, sent: 0, status: 'approved' });
    expect(sim.stats().requests).to.equal(0);
  });

  it('is recorded as a send of kind live_activity that the stats and list calls read', async () => {
    await install('e1', 'flight-9');
    const res = await update('flight-9', { name: 'boarding', event_updates: { gate: 'B7' }, contents: { en: 'Boarding at B7' } });
    await waitFinal(env.pool, Number(res.id));
    const row = await env.pool.query('SELECT kind, target_kind, source FROM sends WHERE id = $1', [Number(res.id)]);
    expect(row.rows[0]).to.deep.equal({ kind: 'live_activity', target_kind: 'activity', source: 'api' });
    const stats = await api.request('GET', `/api/v1/notifications/${res.id}?app_id=${app.app.id}`, { key });
    expect(stats.status).to.equal(200);
    expect(stats.body).to.include({ id: Number(res.id), status: 'approved', total_recipients: 1, sent: 1, name: 'boarding' });
    expect(stats.body.contents).to.deep.equal({ en: 'Boarding at B7' });
    expect(stats.body.live_activity).to.deep.equal({ event: 'update', activity_id: 'flight-9' });
    const list = await api.request('GET', `/api/v1/notifications?app_id=${app.app.id}&limit=50`, { key });
    expect(list.body.notifications.find((n: { id: number }) => n.id === Number(res.id))?.live_activity).to.deep.equal({ event: 'update', activity_id: 'flight-9' });
  });

  it('takes an idempotency key as sends do: the same call once, the same key on another activity refused', async () => {
    await install('f1', 'quiz-1');
    const call = (activity: string) =>
      api.request('POST', `/api/v1/apps/${app.app.id}/live_activities/${activity}/notifications`, {
        key,
        headers: { 'Idempotency-Key': 'quiz-q3' },
        body: { event: 'update', event_updates: { question: 3 } },
      });
    const first = await call('quiz-1');
    expect(first.status).to.equal(200);
    const repeat = await call('quiz-1');
    expect(repeat.status).to.equal(200);
    expect(repeat.body).to.deep.equal(first.body);
    expect(repeat.headers.get('idempotent-replayed')).to.equal('true');
    const elsewhere = await call('quiz-2');
    expect(elsewhere.status).to.equal(422);
    expect(elsewhere.body.errors).to.deep.equal(['This idempotency key was already used with a different request.']);
    const sends = await env.pool.query(`SELECT count(*)::int AS n FROM sends WHERE app_id = $1 AND request->'liveActivity'->>'activityId' LIKE 'quiz-%'`, [app.app.id]);
    expect(sends.rows[0].n).to.equal(1);
  });
});
