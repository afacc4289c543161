// OneSignal's iOS fields end to end: the official client's createNotification (only its base
// server changed) → the api → the sender → the APNs simulator, which enforces Apple's rules per
// push type. Each case reads what the simulator received: exactly Apple's documented `aps` keys
// and `apns-*` headers.
import { expect } from 'chai';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import type { ApnsSim } from '../../apns-sim/index.js';
import { ALERT_KEYS, APS_KEYS } from '../../apns-sim/apple-rules.js';
import { createKey } from '../../core/apps/keys.js';
import type { TestApi } from '../support/api-server.js';
import { addDevices, startDeliveryStack, waitFinal, type DeliveryStack, type TestApp } from './fixtures.js';

const THREE_DAYS = 259_200;

describe("delivery: OneSignal's iOS fields reach Apple as Apple documents them", function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let stack: DeliveryStack;
  let sim: ApnsSim;
  let api: TestApi;
  let app: TestApp;
  let client: OneSignal.DefaultApi;
  let device: string;

  before(async () => {
    stack = await startDeliveryStack(env, 'iosfields');
    ({ sim, api, app, client } = stack);
    [device] = await addDevices(env.pool, app.app.id, 1, { prefix: 'a1', language: 'en' });
  });
  after(() => stack?.close());
  beforeEach(() => sim.reset());

  /** Sends with the official client; returns what the simulator received for the one device. */
  async function deliver(fields: Partial<OneSignal.Notification>) {
    const notification = Object.assign(new OneSignal.Notification(), { app_id: app.app.id, included_segments: ['Subscribed Users'], ...fields });
    const before = Math.floor(Date.now() / 1000);
    const res = await client.createNotification(notification);
    const { final } = await waitFinal(env.pool, Number(res.id));
    expect(final, 'the simulator accepted the push').to.include({ sent: 1, failed: 0 });
    const received = sim.deliveries(device).at(-1)!;
    const payload = JSON.parse(received.payload) as { aps: Record<string, unknown>; custom: Record<string, unknown> };
    const { 'apns-expiration': expiration, ...headers } = received.headers;
    // Only Apple's documented keys, whatever the fields.
    expect(Object.keys(payload.aps).filter((k) => !APS_KEYS.has(k))).to.deep.equal([]);
    const alert = payload.aps.alert as Record<string, unknown> | undefined;
    expect(Object.keys(alert ?? {}).filter((k) => !ALERT_KEYS.has(k))).to.deep.equal([]);
    return { aps: payload.aps, custom: payload.custom, headers, expiration: Number(expiration), before, id: res.id };
  }

  const alertHeaders = { 'apns-topic': 'com.example.iosfields', 'apns-push-type': 'alert' };

  it('a plain alert: alert.body, the default sound, expiring after OneSignal\'s 3 days', async () => {
    const got = await deliver({ contents: { en: 'hi' } });
    expect(got.aps).to.deep.equal({ alert: { body: 'hi' }, sound: 'default' });
    expect(got.headers).to.deep.equal(alertHeaders);
    expect(got.expiration - got.before).to.be.within(THREE_DAYS, THREE_DAYS + 60);
  });

  const cases: Array<[string, Partial<OneSignal.Notification>, Record<string, unknown>]> = [
    ['subtitle (per language) and headings', { headings: { en: 'T' }, subtitle: { en: 'S' } }, { alert: { title: 'T', subtitle: 'S', body: 'hi' }, sound: 'default' }],
    ['ios_sound', { ios_sound: 'ping.aiff' }, { alert: { body: 'hi' }, sound: 'ping.aiff' }],
    ['ios_sound with a critical interruption level: the sound dictionary', { ios_sound: 'alarm.caf', ios_interruption_level: 'critical' }, { alert: { body: 'hi' }, sound: { critical: 1, name: 'alarm.caf', volume: 1 }, 'interruption-level': 'critical' }],
    ['ios_badgeType SetTo with ios_badgeCount', { ios_badge_type: 'SetTo', ios_badge_count: 3 }, { alert: { body: 'hi' }, sound: 'default', badge: 3 }],
    ['ios_category', { ios_category: 'INVITE' }, { alert: { body: 'hi' }, sound: 'default', category: 'INVITE' }],
    ['thread_id', { thread_id: 'chat-7' }, { alert: { body: 'hi' }, sound: 'default', 'thread-id': 'chat-7' }],
    ['summary_arg and summary_arg_count', { summary_arg: 'Anna', summary_arg_count: 2 }, { alert: { body: 'hi', 'summary-arg': 'Anna', 'summary-arg-count': 2 }, sound: 'default' }],
    ['ios_interruption_level time_sensitive', { ios_interruption_level: 'time_sensitive' }, { alert: { body: 'hi' }, sound: 'default', 'interruption-level': 'time-sensitive' }],
    ['ios_relevance_score', { ios_relevance_score: 0.75 }, { alert: { body: 'hi' }, sound: 'default', 'relevance-score': 0.75 }],
    ['target_content_identifier', { target_content_identifier: 'window-2' }, { alert: { body: 'hi' }, sound: 'default', 'target-content-id': 'window-2' }],
    ['mutable_content', { mutable_content: true }, { alert: { body: 'hi' }, sound: 'default', 'mutable-content': 1 }],
    ['apns_alert (loc-key, loc-args)', { apns_alert: { 'loc-key': 'GAME_INVITE', 'loc-args': ['Jenna'] } }, { alert: { body: 'hi', 'loc-key': 'GAME_INVITE', 'loc-args': ['Jenna'] }, sound: 'default' }],
    ['content_available with contents: an alert that also wakes the app', { content_available: true }, { alert: { body: 'hi' }, sound: 'default', 'content-available': 1 }],
    ['name and custom_data: kept, never sent', { name: 'spring', custom_data: { campaign: 7 } }, { alert: { body: 'hi' }, sound: 'default' }],
  ];
  for (const [what, fields, aps] of cases) {
    it(`${what} → ${Object.keys(aps).join(', ')}`, async () => {
      const got = await deliver({ contents: { en: 'hi' }, ...fields });
      expect(got.aps).to.deep.equal(aps);
      expect(got.headers).to.deep.equal(alertHeaders);
    });
  }

  it('content_available without contents: a background push (push type background, priority 5, content-available only)', async () => {
    const got = await deliver({ content_available: true, data: { sync: 'inbox' } });
    expect(got.aps).to.deep.equal({ 'content-available': 1 });
    expect(got.custom.a).to.deep.equal({ sync: 'inbox' });
    expect(got.headers).to.deep.equal({ 'apns-topic': 'com.example.iosfields', 'apns-push-type': 'background', 'apns-priority': '5' });
  });

  it('apns_push_type_override background: the same background push', async () => {
    const got = await deliver({ apns_push_type_override: 'background' });
    expect(got.aps).to.deep.equal({ 'content-available': 1 });
    expect(got.headers).to.include({ 'apns-push-type': 'background', 'apns-priority': '5' });
  });

  const headerCases: Array<[string, Partial<OneSignal.Notification>, Record<string, string>]> = [
    ['priority 10 → apns-priority 10', { priority: 10 }, { 'apns-priority': '10' }],
    ['priority 5 → apns-priority 5', { priority: 5 }, { 'apns-priority': '5' }],
    ['priority 1 → apns-priority 1', { priority: 1 }, { 'apns-priority': '1' }],
    ['collapse_id → apns-collapse-id', { collapse_id: 'promo-1' }, { 'apns-collapse-id': 'promo-1' }],
  ];
  for (const [what, fields, headers] of headerCases) {
    it(what, async () => {
      const got = await deliver({ contents: { en: 'hi' }, ...fields });
      expect(got.headers).to.deep.equal({ ...alertHeaders, ...headers });
    });
  }

  it('ttl → apns-expiration from the moment the push starts; ttl 0 → 0 (now or never)', async () => {
    const got = await deliver({ contents: { en: 'hi' }, ttl: 600 });
    expect(got.expiration - got.before).to.be.within(600, 660);
    expect((await deliver({ contents: { en: 'hi' }, ttl: 0 })).expiration).to.equal(0);
  });

  it('name and custom_data come back in the stats, as given', async () => {
    const got = await deliver({ contents: { en: 'hi' }, name: 'spring sale', custom_data: { campaign: 7, tags: ['a'] } });
    const res = await api.request('GET', `/api/v1/notifications/${got.id}?app_id=${app.app.id}`, { key: (await createKey(env.pool, app.app.id)).key });
    expect(res.body).to.deep.include({ name: 'spring sale', custom_data: { campaign: 7, tags: ['a'] } });
  });

  it('external_id is the older name of the idempotency key: a retry with it sends once', async () => {
    const first = await deliver({ contents: { en: 'once' }, external_id: 'order-77' });
    const again = await client.createNotification(Object.assign(new OneSignal.Notification(), { app_id: app.app.id, included_segments: ['Subscribed Users'], contents: { en: 'once' }, external_id: 'order-77' }));
    expect(again.id).to.equal(first.id);
    expect(sim.deliveries(device)).to.have.length(1);
  });

  it('answers 422 naming the field: collapse_id not printable ASCII, both key names differing, an unknown push type', async () => {
    const refused = async (fields: Record<string, unknown>) => {
      const res = await api.request('POST', '/api/v1/notifications', { key: (await createKey(env.pool, app.app.id)).key, body: { app_id: app.app.id, included_segments: ['All'], contents: { en: 'x' }, ...fields } });
      expect(res.status).to.equal(422);
      return res.body.errors as string[];
    };
    expect(await refused({ collapse_id: 'café-promo' })).to.deep.equal(['collapse_id must be printable ASCII (letters, digits, space and punctuation), at most 64 bytes.']);
    expect(await refused({ idempotency_key: 'a', external_id: 'b' })).to.deep.equal(['idempotency_key and external_id differ: external_id is the older name of idempotency_key. Send one key.']);
    expect(await refused({ apns_push_type_override: 'mdm' })).to.deep.equal(['apns_push_type_override is one of alert, background, voip, location, complication, pushtotalk, widgets, controls.']);
  });
});
