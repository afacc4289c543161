// OneSignal's v1 device calls (issue 38 point 1) driven by the community client onesignal-node
// 3.4.0, unchanged but for its apiRoot, against the real api, a real sender and the APNs
// simulator; each effect read back (the install's row, the player view, a push at the simulator,
// a player gone).
import { expect } from 'chai';
import { Client } from 'onesignal-node';
import { useTestEnv } from '../env/index.js';
import { startDeliveryStack, waitFinal, type DeliveryStack } from '../delivery/fixtures.js';
import { DEVICE_TOKEN_MAX_HEX } from '../../core/formats/device-token.js';
import { FCM_TOKEN_MAX } from '../../core/formats/fcm-token.js';
import { LIMITS } from '../../core/validation/limits.js';

/** The HTTPError onesignal-node rejects with on a status above 299, its body parsed. */
async function refusal(call: Promise<unknown>): Promise<{ statusCode: number; body: any }> {
  try {
    await call;
  } catch (error) {
    const e = error as { statusCode?: number; body?: unknown };
    // onesignal-node 3.4.0 hands the answer's body over as text (its anyToString).
    if (typeof e.statusCode === 'number') return { statusCode: e.statusCode, body: JSON.parse(String(e.body)) };
    throw error;
  }
  throw new Error('the call was not refused');
}

describe('api: OneSignal v1 device calls through onesignal-node 3.4.0', () => {
  const env = useTestEnv();
  let stack: DeliveryStack;
  let client: Client;
  let appId: string;
  let n = 0;
  const iosToken = () => (0xc000 + ++n).toString(16).padStart(64, '0');
  const row = async (id: string) => (await env.pool.query('SELECT * FROM subscriptions WHERE id = $1', [id])).rows[0];

  before(async () => {
    stack = await startDeliveryStack(env, 'v1-players');
    appId = stack.app.app.id;
    client = new Client(appId, stack.key, { apiRoot: `${stack.api.url}/api/v1` });
  });
  after(() => stack?.close());

  it('addDevice registers an iOS device with what Herald keeps, and the same token again is the same player', async () => {
    const token = iosToken();
    const res = await client.addDevice({
      device_type: 0, identifier: token.toUpperCase(), language: 'fr', timezone: 3600, tags: { level: 10, vip: true },
      external_user_id: 'v1-user', test_type: 1, session_count: 3, game_version: '1.2', device_model: 'iPhone9,3', sdk: '031500',
    });
    expect(res.statusCode).to.equal(200);
    expect(res.body.success).to.equal(true);
    const id = res.body.id as string;
    expect(await row(id)).to.include({ token, platform: 'ios', language: 'fr', timezone: 'Etc/GMT-1', external_id: 'v1-user', environment: 'sandbox', session_count: 3, subscribed: true });
    expect((await row(id)).tags).to.deep.equal({ level: '10', vip: 'true' });
    const again = await client.addDevice({ device_type: 0, identifier: token, notification_types: -2 });
    expect(again.body.id).to.equal(id);
    expect(await row(id)).to.include({ session_count: 4, subscribed: false });
    const view = (await client.viewDevice(id)).body;
    expect(view).to.include({ id, identifier: token, device_type: 0, session_count: 4, timezone: 3600, timezone_id: 'Etc/GMT-1', external_user_id: 'v1-user', notification_types: -2, test_type: 1, invalid_identifier: false });
  });

  it('addDevice registers an Android device with its FCM token as given, up to the longest tokens', async () => {
    const fcm = `dXk3:APA91b${'Zz_-.'.repeat(20)}`;
    const id = (await client.addDevice({ device_type: 1, identifier: fcm })).body.id;
    expect(await row(id)).to.include({ token: fcm, platform: 'android' });
    expect((await client.viewDevice(id)).body.device_type).to.equal(1);
    const longest = { ios: 'ab'.repeat(DEVICE_TOKEN_MAX_HEX / 2), android: 'A'.repeat(FCM_TOKEN_MAX) };
    expect((await client.addDevice({ device_type: 0, identifier: longest.ios })).statusCode).to.equal(200);
    expect((await client.addDevice({ device_type: 1, identifier: longest.android })).statusCode).to.equal(200);
    const tooLong = await refusal(client.addDevice({ device_type: 0, identifier: `${longest.ios}a` }));
    expect(tooLong.statusCode).to.equal(422);
    expect(tooLong.body.errors[0]).to.match(/^identifier must be the APNs device token in hex, 8 to 200 digits/);
    const fcmTooLong = await refusal(client.addDevice({ device_type: 1, identifier: `${longest.android}A` }));
    expect(fcmTooLong.statusCode).to.equal(422);
    expect((await refusal(client.addDevice({ device_type: 1, identifier: 'has space' }))).body.errors[0]).to.match(/^identifier must be the FCM registration token/);
  });

  it('refuses other device types with a sentence saying what Herald delivers to', async () => {
    const web = await refusal(client.addDevice({ device_type: 5, identifier: iosToken() }));
    expect(web.statusCode).to.equal(422);
    expect(web.body.errors).to.deep.equal(['device_type 5: Herald delivers to iOS (device_type 0) and Android (device_type 1) only.']);
    const email = await refusal(client.addDevice({ device_type: 11, identifier: 'a@example.com' }));
    expect(email.body.errors).to.deep.equal(['device_type 11: Herald sends push only; email and SMS are not part of Herald.']);
  });

  it('keeps timezone seconds as the time zone of that offset, at the edges of the range', async () => {
    const cases: Array<[number, string | null]> = [[-43200, 'Etc/GMT+12'], [50400, 'Etc/GMT-14'], [0, 'Etc/GMT'], [19800, 'Asia/Kolkata'], [-12600, null], [3601, null]];
    for (const [seconds, zone] of cases) {
      const id = (await client.addDevice({ device_type: 0, identifier: iosToken(), timezone: seconds })).body.id;
      expect((await row(id)).timezone, String(seconds)).to.equal(zone);
    }
    for (const seconds of [-43201, 50401]) {
      const res = await refusal(client.addDevice({ device_type: 0, identifier: iosToken(), timezone: seconds }));
      expect(res.statusCode).to.equal(422);
      expect(res.body.errors[0]).to.match(/^timezone must be a whole number of seconds east of UTC/);
    }
  });

  it('viewDevices pages the players as OneSignal (limit 300 at most)', async () => {
    const total = Number((await env.pool.query('SELECT count(*) FROM subscriptions WHERE app_id = $1', [appId])).rows[0].count);
    const page = (await client.viewDevices({ limit: 300, offset: 1 })).body;
    expect(page).to.include({ total_count: total, offset: 1, limit: 300 });
    expect(page.players).to.have.length(total - 1);
    expect((await client.viewDevices()).body.limit).to.equal(300);
    expect((await client.viewDevices({ limit: 2 })).body.players).to.have.length(2);
    for (const query of [{ limit: 301 }, { limit: 0 }, { offset: -1 }]) {
      const res = await refusal(client.viewDevices(query));
      expect(res.statusCode, JSON.stringify(query)).to.equal(422);
    }
    expect((await refusal(client.viewDevices({ limit: 301 }))).body.errors).to.deep.equal(['limit must be a whole number from 1 to 300.']);
  });

  it('editDevice changes tags ("" removes one), language and subscription', async () => {
    const id = (await client.addDevice({ device_type: 0, identifier: iosToken(), tags: { a: '1', b: '2' } })).body.id;
    const res = await client.editDevice(id, { tags: { a: '', c: 3 }, language: 'de', notification_types: -2 });
    expect(res.statusCode).to.equal(200);
    expect(res.body).to.deep.equal({ success: true });
    expect(await row(id)).to.include({ language: 'de', subscribed: false });
    expect((await row(id)).tags).to.deep.equal({ b: '2', c: '3' });
    await client.editDevice(id, { notification_types: 1 });
    expect((await client.viewDevice(id)).body.notification_types).to.equal(1);
    const unknown = await refusal(client.editDevice('00000000-0000-4000-8000-000000000000', { language: 'en' }));
    expect(unknown.statusCode).to.equal(404);
    const switched = await refusal(client.editDevice(id, { device_type: 1 } as never));
    expect(switched.body.errors[0]).to.match(/^device_type cannot change/);
  });

  it('editTagsWithExternalUserIdDevice tags every device of that external id', async () => {
    const ids = [];
    for (let i = 0; i < 2; i++) ids.push((await client.addDevice({ device_type: 0, identifier: iosToken(), external_user_id: 'tagged-user' })).body.id);
    const other = (await client.addDevice({ device_type: 0, identifier: iosToken(), external_user_id: 'someone-else' })).body.id;
    const res = await client.editTagsWithExternalUserIdDevice('tagged-user', { tags: { plan: 'gold' } });
    expect(res.body).to.deep.equal({ success: true });
    for (const id of ids) expect((await client.viewDevice(id)).body.tags).to.deep.equal({ plan: 'gold' });
    expect((await row(other)).tags).to.deep.equal({});
    const none = await refusal(client.editTagsWithExternalUserIdDevice('nobody', { tags: { x: '1' } }));
    expect(none.statusCode).to.equal(404);
  });

  it('newSession, newPurchase and incrementSessionLength report sessions, spending and time in the app', async () => {
    const id = (await client.addDevice({ device_type: 0, identifier: iosToken() })).body.id;
    await env.pool.query("UPDATE subscriptions SET last_active = now() - interval '2 days' WHERE id = $1", [id]);
    expect((await client.newSession(id, { language: 'es', timezone: -18000 })).body).to.deep.equal({ success: true });
    expect(await row(id)).to.include({ session_count: 2, language: 'es', timezone: 'Etc/GMT+5' });
    expect((await row(id)).last_active.getTime()).to.be.greaterThan(Date.now() - 3_600_000);
    await client.newPurchase(id, { purchases: [{ sku: 'coins', amount: 1.99, iso: 'USD' }, { sku: 'gems', amount: 3, iso: 'EUR' }] });
    await client.incrementSessionLength(id, { state: 'ping', active_time: 60 });
    await client.incrementSessionLength(id, { state: 'ping', active_time: 86_400 });
    const view = (await client.viewDevice(id)).body;
    expect(view).to.include({ session_count: 2, amount_spent: 4.99, playtime: 86_460 });
    expect((await refusal(client.incrementSessionLength(id, { state: 'ping', active_time: 86_401 }))).statusCode).to.equal(422);
    expect((await refusal(client.incrementSessionLength(id, { state: 'stop', active_time: 1 }))).body.errors).to.deep.equal(['state must be "ping".']);
    expect((await refusal(client.newPurchase(id, { purchases: [{ sku: 'x', amount: 1, iso: 'dollars' }] }))).statusCode).to.equal(422);
    expect((await refusal(client.newSession('00000000-0000-4000-8000-000000000000', {}))).statusCode).to.equal(404);
  });

  it('filters by session_count, session_time and amount_spent at their edges', async () => {
    const cohort = { cohort: 'counters' };
    const a = (await client.addDevice({ device_type: 0, identifier: iosToken(), tags: cohort, session_count: 10, playtime: 600, amount_spent: '4.99' })).body.id;
    const b = (await client.addDevice({ device_type: 0, identifier: iosToken(), tags: cohort, session_count: 11 })).body.id;
    expect(a).to.not.equal(b);
    const count = async (filter: Record<string, unknown>) => {
      const res = await stack.api.request('POST', '/api/v1/notifications/count-unsaved', { key: stack.key, body: { app_id: appId, filters: [{ field: 'tag', key: 'cohort', relation: '=', value: 'counters' }, filter] } });
      expect(res.status, JSON.stringify([filter, res.body])).to.equal(200);
      return res.body.count;
    };
    expect(await count({ field: 'session_count', relation: '>', value: '10' })).to.equal(1);
    expect(await count({ field: 'session_count', relation: '<', value: '11' })).to.equal(1);
    expect(await count({ field: 'session_count', relation: '=', value: 10 })).to.equal(1);
    expect(await count({ field: 'session_time', relation: '=', value: '600' })).to.equal(1);
    expect(await count({ field: 'amount_spent', relation: '=', value: '4.99' })).to.equal(1);
    expect(await count({ field: 'amount_spent', relation: '!=', value: '4.99' })).to.equal(1);
    const bad = await stack.api.request('POST', '/api/v1/notifications/count-unsaved', { key: stack.key, body: { app_id: appId, filters: [{ field: 'amount_spent', relation: '>', value: '-1' }] } });
    expect(bad.body.errors).to.deep.equal(['filters[0]: a amount_spent filter is {"field": "amount_spent", "relation": ">", "<", "=" or "!=", "value": a number from 0 such as "10"}.']);
  });

  it('createNotification with include_player_ids pushes to those players', async () => {
    const token = iosToken();
    const id = (await client.addDevice({ device_type: 0, identifier: token })).body.id;
    const sent = await client.createNotification({ contents: { en: 'v1 hello' }, include_player_ids: [id] });
    expect(sent.statusCode).to.equal(200);
    const { final } = await waitFinal(env.pool, Number(sent.body.id));
    expect(final).to.include({ sent: 1 });
    expect(stack.sim.deliveries(token)).to.have.length(1);
  });

  it('takes include_player_ids and include_external_user_ids up to the list limit, not with their v5 names', async () => {
    const ids = (count: number) => Array.from({ length: count }, (_, i) => `00000000-0000-4000-8000-${i.toString().padStart(12, '0')}`);
    expect((await client.createNotification({ contents: { en: 'x' }, include_player_ids: ids(LIMITS.ids_per_list) })).statusCode).to.equal(200);
    const over = await refusal(client.createNotification({ contents: { en: 'x' }, include_player_ids: ids(LIMITS.ids_per_list + 1) }));
    expect(over.statusCode).to.equal(422);
    expect(over.body.errors).to.deep.equal([`include_player_ids holds at most ${LIMITS.ids_per_list} ids; this request has ${LIMITS.ids_per_list + 1}.`]);
    const external = await client.createNotification({ contents: { en: 'x' }, include_external_user_ids: ['v1-user'] });
    expect(external.statusCode).to.equal(200);
    const both = await refusal(client.createNotification({ contents: { en: 'x' }, include_player_ids: ids(1), include_subscription_ids: ids(1) } as never));
    expect(both.statusCode).to.equal(422);
    expect(both.body.errors).to.deep.equal(['Name one audience only; this request names include_subscription_ids and include_player_ids.']);
    const bothExternal = await refusal(client.createNotification({ contents: { en: 'x' }, include_external_user_ids: ['a'], include_external_ids: ['a'] } as never));
    expect(bothExternal.body.errors).to.deep.equal(['Name one audience only; this request names include_external_ids and include_external_user_ids.']);
    const externals = (count: number) => Array.from({ length: count }, (_, i) => `user-${i}`);
    expect((await client.createNotification({ contents: { en: 'x' }, include_external_user_ids: externals(LIMITS.ids_per_list) })).statusCode).to.equal(200);
    expect((await refusal(client.createNotification({ contents: { en: 'x' }, include_external_user_ids: externals(LIMITS.ids_per_list + 1) }))).body.errors)
      .to.deep.equal([`include_external_user_ids holds at most ${LIMITS.ids_per_list} ids; this request has ${LIMITS.ids_per_list + 1}.`]);
    const bad = await refusal(client.createNotification({ contents: { en: 'x' }, include_player_ids: ['nope'] }));
    expect(bad.body.errors).to.deep.equal(['include_player_ids[0] is not a Subscription ID (a UUID).']);
  });

  it('deleteDevice erases the player for good', async () => {
    const id = (await client.addDevice({ device_type: 0, identifier: iosToken() })).body.id;
    const res = await client.deleteDevice(id);
    expect(res.body).to.include({ success: true });
    expect(res.body.erased).to.include({ installs: 1 });
    expect(await row(id)).to.equal(undefined);
    expect((await refusal(client.viewDevice(id))).statusCode).to.equal(404);
    expect((await refusal(client.deleteDevice(id))).statusCode).to.equal(404);
  });
});

describe('api: the rest of onesignal-node 3.4.0 (its notification, export and segment calls)', () => {
  const env = useTestEnv();
  let stack: DeliveryStack;
  let client: Client;

  before(async () => {
    stack = await startDeliveryStack(env, 'v1-rest');
    client = new Client(stack.app.app.id, stack.key, { apiRoot: `${stack.api.url}/api/v1` });
  });
  after(() => stack?.close());

  it('viewNotification, viewNotifications, cancelNotification, exportCSV, createSegment and deleteSegment', async () => {
    const sent = await client.createNotification({ contents: { en: 'later' }, included_segments: ['Subscribed Users'], send_after: new Date(Date.now() + 3_600_000).toISOString() });
    const id = String(sent.body.id);
    expect((await client.viewNotification(id)).body.id).to.equal(Number(id));
    expect((await client.viewNotifications({ limit: 5 })).body.notifications.map((s: { id: number }) => s.id)).to.include(Number(id));
    expect((await client.cancelNotification(id)).body.success).to.equal(true);
    expect((await client.exportCSV({})).body.csv_file_url).to.match(/\.csv\.gz$/);
    const segment = await client.createSegment({ name: 'v1 segment', filters: [{ field: 'tag', key: 'plan', relation: '=', value: 'gold' }] });
    expect(segment.body.success).to.equal(true);
    expect((await client.deleteSegment(segment.body.id)).body.success).to.equal(true);
  });
});
