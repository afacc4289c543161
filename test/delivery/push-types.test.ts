// Issue 29 point 3, on real PostgreSQL against the simulator (which enforces Apple's topic per push
// type, the priorities, push-to-talk's apns-expiration 0 and WidgetKit's payload, and here only the
// app's documented topics: anything else is TopicDisallowed): each push type an install holds a
// token of reaches the simulator on that token with Apple's headers and payload, through REST and
// the official client; installs without a token of the type are skipped; Apple refusing a VoIP
// token (410, BadDeviceToken), or any type's token (DeviceTokenNotForTopic), removes that token
// only; the token calls' edges.
import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import * as OneSignal from '@onesignal/node-onesignal';
import { parseCsv } from '../support/csv.js';
import { createKey } from '../../core/apps/keys.js';
import { useTestEnv } from '../env/index.js';
import type { DeliveryRecord } from '../../apns-sim/recorder.js';
import { PUSH_TYPE_RULE } from '../../api/routes/push-type-tokens.js';
import { OWN_TOKEN_PUSH_TYPES, PUSH_TYPES } from '../../core/payload/push-types.js';
import { createTestApp, startDeliveryStack, token, waitFinal, type DeliveryStack } from './fixtures.js';

const BUNDLE = 'com.example.pushtypes';
/** A token prefix per type, so each type's pushes are found in the simulator's log by their token. */
const PREFIX: Record<string, string> = { voip: 'a1', location: 'a2', complication: 'a3', pushtotalk: 'a4', widgets: 'a5', controls: 'a6' };

describe('delivery: every APNs push type, to the token of its type', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let stack: DeliveryStack;
  let withTokens: string;
  let alertOnly: string;

  before(async () => {
    stack = await startDeliveryStack(env, 'pushtypes', {
      topics: [BUNDLE, ...OWN_TOKEN_PUSH_TYPES.map((t) => BUNDLE + PUSH_TYPES[t].topicSuffix)],
      rules: [
        { prefix: 'dead', status: 410, reason: 'Unregistered' },
        { prefix: 'bade', status: 400, reason: 'BadDeviceToken' },
        { prefix: 'f0f0', status: 400, reason: 'DeviceTokenNotForTopic' },
      ],
    });
    withTokens = await install(token('c1', 1));
    alertOnly = await install(token('c2', 1));
    for (const type of OWN_TOKEN_PUSH_TYPES) expect((await setToken(withTokens, type, token(PREFIX[type], 1))).status).to.equal(200);
  });
  after(() => stack?.close());

  async function install(alertToken: string): Promise<string> {
    return (await stack.api.request('POST', `/api/v1/apps/${stack.app.app.id}/subscriptions`, { body: { token: alertToken } })).body.id;
  }
  const setToken = (sub: string, type: string, pushToken: string, appId = stack.app.app.id) =>
    stack.api.request('PUT', `/api/v1/apps/${appId}/subscriptions/${sub}/push_tokens/${type}`, { body: { push_token: pushToken, device_type: 0 } });
  const post = (body: Record<string, unknown>) =>
    stack.api.request('POST', '/api/v1/notifications', { key: stack.key, body: { app_id: stack.app.app.id, ...body } });
  const only = (records: DeliveryRecord[]) => {
    expect(records, 'one request').to.have.length(1);
    return { ...records[0], body: JSON.parse(records[0].payload) };
  };

  // The body each type sends, and what Apple must then receive besides its topic.
  const cases: Array<[string, Record<string, unknown>, Record<string, string>, unknown]> = [
    ['voip', { data: { call: 'c-1' } }, { 'apns-priority': '10' }, { aps: {}, custom: { a: { call: 'c-1' } } }],
    ['location', { priority: 5 }, { 'apns-priority': '5' }, { aps: {}, custom: {} }],
    ['complication', { ttl: 0 }, { 'apns-expiration': '0' }, { aps: {}, custom: {} }],
    ['pushtotalk', { data: { speaker: 'Ann' } }, { 'apns-priority': '10', 'apns-expiration': '0' }, { aps: {}, custom: { a: { speaker: 'Ann' } } }],
    ['widgets', {}, {}, { aps: { 'content-changed': true } }],
    ['controls', { priority: 10, ttl: 0 }, { 'apns-priority': '10', 'apns-expiration': '0' }, { aps: { 'content-changed': true } }],
  ];
  for (const [type, body, headers, payload] of cases) {
    it(`${type}: through REST to the ${type} tokens only, on ${BUNDLE}${PUSH_TYPES[type].topicSuffix}`, async () => {
      const res = await post({ included_segments: ['Subscribed Users'], apns_push_type_override: type, ...body });
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
      const { final } = await waitFinal(env.pool, Number(res.body.id));
      // The audience is the installs holding a token of the type: the alert-only install is not in it.
      expect(final).to.include({ total_recipients: 1, sent: 1, failed: 0 });
      const got = only(stack.sim.deliveries(token(PREFIX[type], 1)));
      expect(got.status).to.equal(200);
      expect(got.headers).to.include({ 'apns-push-type': type, 'apns-topic': BUNDLE + PUSH_TYPES[type].topicSuffix, ...headers });
      if ('custom' in (payload as object)) {
        expect(got.body.aps).to.deep.equal({});
        expect(got.body.custom).to.deep.include({ ...(payload as { custom: object }).custom, i: String(res.body.id) });
      } else {
        expect(got.body).to.deep.equal(payload);
      }
    });
  }

  it('nothing of those sends reached an alert token', () => {
    expect(stack.sim.deliveries(token('c1', 1))).to.deep.equal([]);
    expect(stack.sim.deliveries(token('c2', 1))).to.deep.equal([]);
  });

  it('a list send counts an install without a token of the type as skipped', async () => {
    const res = await post({ include_subscription_ids: [withTokens, alertOnly], apns_push_type_override: 'voip' });
    const { final } = await waitFinal(env.pool, Number(res.body.id));
    expect(final).to.include({ total_recipients: 2, sent: 1, skipped: 1 });
    expect(stack.sim.deliveries(token('a1', 1))).to.have.length(2);
  });

  for (const [type, body, headers] of cases) {
    it(`${type}: through the official client's createNotification (its apns_push_type_override)`, async () => {
      const n = Object.assign(new OneSignal.Notification(), { app_id: stack.app.app.id, include_subscription_ids: [withTokens], apns_push_type_override: type, ...body });
      const accepted = await stack.client.createNotification(n);
      const { final } = await waitFinal(env.pool, Number(accepted.id));
      expect(final).to.include({ sent: 1 });
      const last = stack.sim.deliveries(token(PREFIX[type], 1)).at(-1)!;
      expect(last.headers).to.include({ 'apns-push-type': type, 'apns-topic': BUNDLE + PUSH_TYPES[type].topicSuffix, ...headers });
      if (body.data) expect(JSON.parse(last.payload).custom.a).to.deep.equal(body.data);
    });
  }

  it('refuses a body the type does not allow with its sentence, through REST and the official client', async () => {
    const res = await post({ included_segments: ['Subscribed Users'], apns_push_type_override: 'pushtotalk', contents: { en: 'hi' }, priority: 5 });
    expect(res.status).to.equal(422);
    expect(res.body.errors).to.deep.equal([
      "A pushtotalk push (apns_push_type_override pushtotalk) carries only data, for the app's own handler, so it cannot carry contents. Remove them, or send an alert.",
      'priority of a pushtotalk push must be from 7 to 10 (Apple delivers pushtotalk pushes at priority 10), or absent.',
    ]);
    const n = Object.assign(new OneSignal.Notification(), { app_id: stack.app.app.id, included_segments: ['Subscribed Users'], apns_push_type_override: 'widgets', data: { k: 'v' } });
    const refused = await stack.client.createNotification(n).then(() => undefined, (e: { code?: number; body?: unknown }) => e);
    expect(refused?.code).to.equal(422);
    expect(JSON.stringify(refused?.body)).to.include('A widgets push (apns_push_type_override widgets) carries only aps.content-changed');
  });

  it("refuses a location send of an app whose credentials are a certificate (Apple takes location over token auth only)", async () => {
    const certApp = await createTestApp(env.pool, 'pushtypes-cert');
    await env.pool.query(`UPDATE app_credentials SET kind = 'certificate' WHERE app_id = $1`, [certApp.app.id]);
    const certKey = (await createKey(env.pool, certApp.app.id)).key;
    const send = (type: string) =>
      stack.api.request('POST', '/api/v1/notifications', { key: certKey, body: { app_id: certApp.app.id, included_segments: ['Subscribed Users'], apns_push_type_override: type } });
    const res = await send('location');
    expect([res.status, res.body.errors]).to.deep.equal([422, [
      "A location push needs the app's push key (.p8): Apple takes location pushes over token-based connections only, and this app's credentials are a certificate.",
    ]]);
    expect((await send('voip')).status).to.equal(200); // accepted (no install holds a VoIP token: nobody to send to)
  });

  it("Apple refusing a VoIP token for good removes that token only: the install's alert token and subscription stay", async () => {
    const gone = await install(token('c3', 1));
    const bad = await install(token('c4', 1));
    await setToken(gone, 'voip', token('dead', 1));
    await setToken(gone, 'location', token('a2', 3));
    await setToken(bad, 'voip', token('bade', 1));
    const res = await post({ include_subscription_ids: [gone, bad], apns_push_type_override: 'voip' });
    const { final } = await waitFinal(env.pool, Number(res.body.id));
    expect(final).to.include({ sent: 0, failed: 2 });
    const left = await env.pool.query('SELECT subscription_id::text AS id, push_type FROM push_type_tokens WHERE subscription_id = ANY($1::uuid[])', [[gone, bad]]);
    expect(left.rows).to.deep.equal([{ id: gone, push_type: 'location' }]);
    const subs = await env.pool.query('SELECT token FROM subscriptions WHERE id = ANY($1::uuid[]) AND subscribed ORDER BY token', [[gone, bad]]);
    expect(subs.rows.map((r) => r.token)).to.deep.equal([token('c3', 1), token('c4', 1)]);
    // The send's events file (exportEvents) says failed with Apple's reason, never unsubscribed:
    // both installs are still subscribed.
    const file = await fetch((await stack.client.exportEvents(String(res.body.id), stack.app.app.id)).csv_file_url!);
    const [header, ...rows] = parseCsv(gunzipSync(Buffer.from(await file.arrayBuffer())).toString('utf8'));
    const col = (name: string) => header.indexOf(name);
    const events = rows.map((r) => [r[col('subscription_id')], r[col('failure_message')], r[col('failed')] !== '', r[col('unsubscribed')]]);
    expect(events.sort()).to.deep.equal([[gone, 'Unregistered', true, ''], [bad, 'BadDeviceToken', true, '']].sort());
    // The alert token still gets alerts.
    const alert = await post({ include_subscription_ids: [gone], contents: { en: 'still here' } });
    expect((await waitFinal(env.pool, Number(alert.body.id))).final).to.include({ sent: 1 });
    expect(only(stack.sim.deliveries(token('c3', 1))).headers).to.include({ 'apns-push-type': 'alert', 'apns-topic': BUNDLE });
  });

  // Token hygiene of every own-token type, as for alerts (sender/outcomes.ts): Apple saying the
  // token is not for the type's topic removes that type's token of the install, and nothing else.
  for (const [n, type] of OWN_TOKEN_PUSH_TYPES.entries()) {
    it(`${type}: Apple refusing the token with DeviceTokenNotForTopic removes the ${type} token only, counted failed; the install and its alert token stay`, async () => {
      const other = OWN_TOKEN_PUSH_TYPES[(n + 1) % OWN_TOKEN_PUSH_TYPES.length];
      const alertToken = token('c9', n + 1);
      const sub = await install(alertToken);
      const refused = token('f0f0', n + 1);
      expect((await setToken(sub, type, refused)).status).to.equal(200);
      expect((await setToken(sub, other, token(PREFIX[other], 100 + n))).status).to.equal(200);
      const body = cases.find(([t]) => t === type)![1];
      const res = await post({ include_subscription_ids: [sub], apns_push_type_override: type, ...body });
      expect(res.status, JSON.stringify(res.body)).to.equal(200); // a list send of one install
      const { final } = await waitFinal(env.pool, Number(res.body.id));
      expect(final).to.include({ total_recipients: 1, sent: 0, failed: 1 });
      const got = only(stack.sim.deliveries(refused));
      expect([got.status, got.headers['apns-push-type']]).to.deep.equal([400, type]);
      const left = await env.pool.query('SELECT push_type, token FROM push_type_tokens WHERE subscription_id = $1', [sub]);
      expect(left.rows).to.deep.equal([{ push_type: other, token: token(PREFIX[other], 100 + n) }]);
      const kept = await env.pool.query('SELECT token, subscribed, unsubscribed_reason FROM subscriptions WHERE id = $1', [sub]);
      expect(kept.rows).to.deep.equal([{ token: alertToken, subscribed: true, unsubscribed_reason: null }]);
    });
  }

  describe('the token calls', () => {
    const stored = async (sub: string) => (await env.pool.query('SELECT push_type, token FROM push_type_tokens WHERE subscription_id = $1 ORDER BY push_type', [sub])).rows;
    const refused = async (res: Promise<{ status: number; body: any }>, status: number, message?: string) => {
      const r = await res;
      expect(r.status, JSON.stringify(r.body)).to.equal(status);
      if (message) expect(r.body.errors).to.deep.equal([message]);
    };
    const RULE = "push_token must be the install's token of that push type in hex, 8 to 200 digits (0-9, a-f).";

    it('takes the shortest (8) and longest (200) hex tokens, stored lower case, a second one replacing the first', async () => {
      const sub = await install(token('c5', 1));
      expect((await setToken(sub, 'voip', 'ABCDEF01')).status).to.equal(200);
      expect(await stored(sub)).to.deep.equal([{ push_type: 'voip', token: 'abcdef01' }]);
      expect((await setToken(sub, 'voip', 'f'.repeat(200))).status).to.equal(200);
      expect(await stored(sub)).to.deep.equal([{ push_type: 'voip', token: 'f'.repeat(200) }]);
    });

    it('refuses 7 and 201 digits, a token that is not hex or absent, an unknown type, another app and an unknown install', async () => {
      const sub = await install(token('c6', 1));
      await refused(setToken(sub, 'voip', 'a'.repeat(7)), 422, RULE);
      await refused(setToken(sub, 'voip', 'a'.repeat(201)), 422, RULE);
      await refused(setToken(sub, 'voip', 'xyz12345'), 422, RULE);
      await refused(stack.api.request('PUT', `/api/v1/apps/${stack.app.app.id}/subscriptions/${sub}/push_tokens/voip`, { body: {} }), 422, 'push_token is required.');
      for (const type of ['mdm', 'alert', 'liveactivity', 'VOIP']) await refused(setToken(sub, type, 'ab'.repeat(32)), 422, PUSH_TYPE_RULE);
      await refused(setToken('00000000-0000-4000-8000-000000000000', 'voip', 'ab'.repeat(32)), 404);
      const other = (await createTestApp(env.pool, 'pushtypes-other')).app.id;
      await refused(setToken(sub, 'voip', 'ab'.repeat(32), other), 404);
      expect(await stored(sub)).to.deep.equal([]);
    });

    it('removes a token of one type, the others and the alert token staying; removing it again is a 404', async () => {
      const sub = await install(token('c7', 1));
      await setToken(sub, 'voip', token('a1', 7));
      await setToken(sub, 'widgets', token('a5', 7));
      const path = `/api/v1/apps/${stack.app.app.id}/subscriptions/${sub}/push_tokens/voip`;
      expect((await stack.api.request('DELETE', path)).body).to.deep.equal({ success: true });
      expect(await stored(sub)).to.deep.equal([{ push_type: 'widgets', token: token('a5', 7) }]);
      await refused(stack.api.request('DELETE', path), 404);
      await refused(stack.api.request('DELETE', `/api/v1/apps/${stack.app.app.id}/subscriptions/${sub}/push_tokens/mdm`), 422, PUSH_TYPE_RULE);
    });
  });
});
