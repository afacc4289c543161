// Android installs (issue 39 point 4) through the official client @onesignal/node-onesignal 5.18.0
// and the app-facing registration, against the real api and PostgreSQL: an `AndroidPush`
// subscription goes through every install call an iOS one does, its FCM token checked by
// core/formats/fcm-token.ts and kept as given (case and all), stored with platform 'android' and
// answered as `type: "AndroidPush"`; the longest token (4,096 characters) is accepted and read
// back, 4,097 and a bad character are refused with the rule's sentence. The same token string
// under the other platform is a 409 (docs/decisions.md); the import, the export and erasure carry
// the platform.
import { expect } from 'chai';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { officialClient, refused } from '../support/onesignal.js';
import { makeApp, type TestApp } from '../support/apps.js';
import { parseCsv } from '../support/csv.js';
import { importSubscriptions } from '../../core/users/import-installs.js';
import { FCM_TOKEN_MAX } from '../../core/formats/fcm-token.js';

const RULE = (field: string) => `${field} must be the FCM registration token, 1 to 4096 characters of A-Z, a-z, 0-9, _, :, . and -.`;

describe('api: Android installs through the official client', () => {
  const env = useTestEnv();
  const api = useTestApi(env);
  let app: TestApp;
  let client: OneSignal.DefaultApi;
  let n = 0;
  /** An FCM-shaped token: mixed case, a colon, _ - . (kept exactly as given). */
  const fcm = () => `dQw4w9WgXcQ:APA91b${++n}_Hx-Yz.Kq` + 'AbC'.repeat(40);
  const hex = () => (0x5a000 + ++n).toString(16).padStart(64, '0');
  const user = (body: Partial<OneSignal.User>) => Object.assign(new OneSignal.User(), body);
  const android = (token: string, extra: Partial<OneSignal.Subscription> = {}) => ({ type: 'AndroidPush' as const, token, ...extra });
  const wrapped = (subscription: Record<string, unknown>) => Object.assign(new OneSignal.SubscriptionBody(), { subscription });
  const read = async (id: string) => (await api.request('GET', `/api/v1/apps/${app.app.id}/subscriptions/${id}`, { key: app.key })).body;
  const stored = async (token: string) =>
    (await env.pool.query<{ id: string; platform: string; token: string }>('SELECT id, platform, token FROM subscriptions WHERE app_id = $1 AND token = $2', [app.app.id, token])).rows;

  before(async () => {
    app = await makeApp(env.pool);
    client = officialClient(api.url, app.key);
  });

  it('createUser takes AndroidPush beside iOSPush: stored android with its token as given, answered AndroidPush', async () => {
    const [a, i] = [fcm(), hex()];
    const made = await client.createUser(app.app.id, user({ identity: { external_id: 'ana' }, subscriptions: [android(a), { type: 'iOSPush', token: i.toUpperCase() }] }));
    expect(made.subscriptions!.map((s) => [s.type, s.token])).to.deep.equal([['AndroidPush', a], ['iOSPush', i]]);
    expect((await stored(a)).map((r) => r.platform)).to.deep.equal(['android']);
    expect((await stored(i)).map((r) => r.platform)).to.deep.equal(['ios']);
    expect(await read(made.subscriptions![0].id!)).to.include({ platform: 'android', token: a });
    const got = await client.getUser(app.app.id, 'external_id', 'ana');
    expect(got.subscriptions!.map((s) => s.type)).to.deep.equal(['AndroidPush', 'iOSPush']);
  });

  it('createSubscription: the longest token (4,096) is accepted and read back; 4,097 and a bad character are refused with the rule', async () => {
    await client.createUser(app.app.id, user({ identity: { external_id: 'long' } }));
    const longest = 'Aa0_:.-'.repeat(FCM_TOKEN_MAX).slice(0, FCM_TOKEN_MAX);
    const made = await client.createSubscription(app.app.id, 'external_id', 'long', wrapped(android(longest, { enabled: true })));
    expect(made.subscription).to.deep.include({ type: 'AndroidPush', token: longest, enabled: true });
    expect((await client.getUser(app.app.id, 'external_id', 'long')).subscriptions![0].token).to.have.lengthOf(FCM_TOKEN_MAX).and.equal(longest);
    // The longest token names its install in a path too.
    await client.updateSubscriptionByToken(app.app.id, 'AndroidPush', longest, wrapped({ enabled: false }));
    expect(await read(made.subscription!.id!)).to.include({ token: longest, subscribed: false });
    const cases: Array<[Record<string, unknown>, string]> = [
      [android('a'.repeat(FCM_TOKEN_MAX + 1)), RULE('subscription.token')],
      [android('abc/def'), RULE('subscription.token')],
      [android(''), RULE('subscription.token')],
      [{ type: 'Email', token: 'a@b.c' }, 'subscription.type must be iOSPush or AndroidPush: Herald delivers to iOS and Android installs only.'],
    ];
    for (const [body, message] of cases) {
      const r = await refused(client.createSubscription(app.app.id, 'external_id', 'long', wrapped(body)));
      expect([r.code, r.body.errors[0]], JSON.stringify(body).slice(0, 60)).to.deep.equal([422, message]);
    }
    expect((await client.getUser(app.app.id, 'external_id', 'long')).subscriptions).to.have.lengthOf(1);
  });

  it('updateSubscription changes an Android install by its own rule; its type never changes', async () => {
    const made = await client.createUser(app.app.id, user({ identity: { external_id: 'ugo' }, subscriptions: [android(fcm())] }));
    const id = made.subscriptions![0].id!;
    const next = fcm();
    await client.updateSubscription(app.app.id, id, wrapped({ type: 'AndroidPush', token: next, enabled: false }));
    expect(await read(id)).to.include({ token: next, platform: 'android', subscribed: false, unsubscribed_reason: 'app' });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ token: 'has space' }, RULE('subscription.token')],
      [{ token: 'x'.repeat(FCM_TOKEN_MAX + 1) }, RULE('subscription.token')],
      [{ type: 'iOSPush' }, 'type cannot change: this install is AndroidPush (delete it and register the token as iOSPush).'],
    ];
    for (const [body, message] of cases) {
      const r = await refused(client.updateSubscription(app.app.id, id, wrapped(body)));
      expect([r.code, r.body.errors[0]], JSON.stringify(body).slice(0, 60)).to.deep.equal([422, message]);
    }
    expect(await read(id)).to.include({ token: next, platform: 'android' });
  });

  it('updateSubscriptionByToken takes token_type AndroidPush; the token string under the other type finds nothing', async () => {
    const token = fcm();
    const made = await client.createUser(app.app.id, user({ identity: { external_id: 'tia' }, subscriptions: [android(token)] }));
    const id = made.subscriptions![0].id!;
    await client.updateSubscriptionByToken(app.app.id, 'AndroidPush', token, wrapped({ enabled: false }));
    expect(await read(id)).to.include({ subscribed: false });
    // A hex string is a valid token of both kinds: under the type it was not registered with, no install.
    const both = hex();
    await client.createSubscription(app.app.id, 'external_id', 'tia', wrapped(android(both)));
    const path = (type: string, t: string) => `/api/v1/apps/${app.app.id}/subscriptions_by_token/${type}/${encodeURIComponent(t)}`;
    const cases: Array<[string, string, number, string]> = [
      ['iOSPush', both, 404, 'No such subscription.'],
      ['AndroidPush', both.toUpperCase(), 404, 'No such subscription.'],
      ['AndroidPush', 'bad/char', 422, RULE('token')],
      ['Email', token, 422, 'token_type must be iOSPush or AndroidPush: Herald delivers to iOS and Android installs only.'],
    ];
    for (const [type, t, code, message] of cases) {
      const r = await api.request('PATCH', path(type, t), { key: app.key, body: { subscription: { enabled: true } } });
      expect([r.status, r.body.errors?.[0]], `${type} ${t.slice(0, 12)}`).to.deep.equal([code, message]);
    }
    const ok = await api.request('PATCH', path('AndroidPush', both), { key: app.key, body: { subscription: { type: 'AndroidPush', enabled: false } } });
    expect(ok.status).to.equal(202);
  });

  it('transferSubscription moves an Android install; deleteSubscription erases it', async () => {
    const made = await client.createUser(app.app.id, user({ identity: { external_id: 'from' }, subscriptions: [android(fcm()), { type: 'iOSPush', token: hex() }] }));
    await client.createUser(app.app.id, user({ identity: { external_id: 'to' } }));
    const id = made.subscriptions![0].id!;
    await client.transferSubscription(app.app.id, id, Object.assign(new OneSignal.TransferSubscriptionRequestBody(), { identity: { external_id: 'to' } }));
    expect((await client.getUser(app.app.id, 'external_id', 'to')).subscriptions!.map((s) => [s.id, s.type])).to.deep.equal([[id, 'AndroidPush']]);
    await client.deleteSubscription(app.app.id, id);
    expect((await client.getUser(app.app.id, 'external_id', 'to')).subscriptions).to.deep.equal([]);
    expect((await refused(client.deleteSubscription(app.app.id, id))).code).to.equal(404);
  });

  it('the app-facing registration: type AndroidPush, iOSPush by default; the same token under the other type is a 409', async () => {
    const register = (body: Record<string, unknown>) => api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body });
    const a = fcm();
    const made = await register({ type: 'AndroidPush', token: a, tags: { plan: 'droid' } });
    expect(made.status).to.equal(201);
    expect(await read(made.body.id)).to.include({ platform: 'android', token: a });
    expect((await register({ type: 'AndroidPush', token: a, language: 'fr' })).body.id).to.equal(made.body.id);
    const i = hex();
    expect(await read((await register({ token: i })).body.id)).to.include({ platform: 'ios' });
    const clash = await register({ type: 'AndroidPush', token: i });
    expect([clash.status, clash.body.errors[0]]).to.deep.equal([409, 'token is registered to an iOSPush subscription of this app; delete that one first to register the token as AndroidPush.']);
    const both = hex();
    await register({ type: 'AndroidPush', token: both });
    const clash2 = await register({ token: both });
    expect([clash2.status, clash2.body.errors[0]]).to.deep.equal([409, 'token is registered to an AndroidPush subscription of this app; delete that one first to register the token as iOSPush.']);
    expect((await stored(both)).map((r) => r.platform)).to.deep.equal(['android']);
    const longest = 'Zz9:_-.'.repeat(FCM_TOKEN_MAX).slice(0, FCM_TOKEN_MAX);
    const long = await register({ type: 'AndroidPush', token: longest });
    expect(long.status).to.equal(201);
    expect((await read(long.body.id)).token).to.equal(longest);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'AndroidPush', token: 'a'.repeat(FCM_TOKEN_MAX + 1) }, RULE('token')],
      [{ type: 'AndroidPush', token: 'a b' }, RULE('token')],
      [{ token: a }, 'token must be the APNs device token in hex, 8 to 200 digits (0-9, a-f).'],
      [{ type: 'WebPush', token: a }, 'type must be iOSPush or AndroidPush: Herald delivers to iOS and Android installs only.'],
    ];
    for (const [body, message] of cases) {
      const r = await register(body);
      expect([r.status, r.body.errors[0]], JSON.stringify(body).slice(0, 60)).to.deep.equal([422, message]);
    }
    // The app-facing update keeps the install's rule: a token of its own kind, no change of type.
    const upd = (body: Record<string, unknown>) => api.request('PATCH', `/api/v1/apps/${app.app.id}/subscriptions/${made.body.id}`, { body });
    const renamed = fcm();
    expect((await upd({ token: renamed })).status).to.equal(200);
    expect(await read(made.body.id)).to.include({ token: renamed, platform: 'android' });
    const wrong = await upd({ type: 'iOSPush' });
    expect([wrong.status, wrong.body.errors[0]]).to.deep.equal([422, 'type cannot change: this install is AndroidPush (delete it and register the token as iOSPush).']);
  });

  it("an Android install holds none of Apple's own tokens (Live Activity, push-to-start, VoIP, …): a 422 saying so", async () => {
    const sdk = (method: string, path: string, body: unknown) => api.request(method, `/api/v1/apps/${app.app.id}${path}`, { body });
    const id = (await sdk('POST', '/subscriptions', { type: 'AndroidPush', token: fcm() })).body.id as string;
    const apple = hex();
    const cases: Array<[string, string, unknown, string]> = [
      ['PUT', `/subscriptions/${id}/push_tokens/voip`, { push_token: apple }, "voip tokens are Apple's (APNs): this install is AndroidPush, so it cannot hold one."],
      ['POST', '/live_activities/match-9/token', { subscription_id: id, push_token: apple }, "Live Activity tokens are Apple's (APNs): this install is AndroidPush, so it cannot hold one."],
      ['PUT', `/activities/tokens/start/Score/subscriptions/${id}`, { activity_token: apple }, "Push-to-start tokens are Apple's (APNs): this install is AndroidPush, so it cannot hold one."],
    ];
    for (const [method, path, body, message] of cases) {
      const r = await sdk(method, path, body);
      expect([r.status, r.body.errors?.[0]], path).to.deep.equal([422, message]);
    }
    const counts = await env.pool.query(
      'SELECT (SELECT count(*) FROM push_type_tokens WHERE subscription_id = $1)::int + (SELECT count(*) FROM live_activity_tokens WHERE subscription_id = $1)::int AS n', [id]);
    expect(counts.rows[0].n).to.equal(0);
    // An iOS install still takes them.
    const ios = (await sdk('POST', '/subscriptions', { token: hex() })).body.id as string;
    expect((await sdk('PUT', `/subscriptions/${ios}/push_tokens/voip`, { push_token: apple })).status).to.equal(200);
  });

  it('herald import takes platform android; a token the app has under the other platform is left as it is and reported', async () => {
    const [a, i] = [fcm(), hex()];
    await api.request('POST', `/api/v1/apps/${app.app.id}/subscriptions`, { body: { token: i } });
    const lines = [{ platform: 'android', token: a, tags: { imported: 'yes' } }, { platform: 'android', token: i }, { platform: 'ios', token: hex() }];
    const result = await importSubscriptions(env.pool, app.app.id, Readable.from([lines.map((l) => JSON.stringify(l)).join('\n') + '\n']));
    expect([result.lines, result.accepted, result.rejected]).to.deep.equal([3, 2, 1]);
    expect(result.problems).to.deep.equal(['1 token registered under the other platform left unchanged (delete those installs first to import them as the platform given)']);
    expect((await stored(a)).map((r) => r.platform)).to.deep.equal(['android']);
    expect((await stored(i)).map((r) => r.platform)).to.deep.equal(['ios']);
  });

  it('the export has a platform column (and OneSignal device_type 1 for Android)', async () => {
    const own = await makeApp(env.pool);
    const ownClient = officialClient(api.url, own.key);
    const a = fcm();
    await ownClient.createUser(own.app.id, user({ subscriptions: [android(a), { type: 'iOSPush', token: hex() }] }));
    const answer = await ownClient.exportSubscriptions(own.app.id, new OneSignal.ExportSubscriptionsRequestBody());
    const res = await fetch(answer.csv_file_url!);
    const [header, ...rows] = parseCsv(gunzipSync(Buffer.from(await res.arrayBuffer())).toString('utf8'));
    const records = rows.map((r) => Object.fromEntries(header.map((h, k) => [h, r[k]])));
    expect(records.map((r) => [r.platform, r.device_type, r.identifier === a])).to.deep.equal([['android', '1', true], ['ios', '0', false]]);
  });

  it('deleteUser erases an Android install with the rest of the user', async () => {
    const a = fcm();
    await client.createUser(app.app.id, user({ identity: { external_id: 'gone-droid' }, subscriptions: [android(a)] }));
    await client.deleteUser(app.app.id, 'external_id', 'gone-droid');
    expect(await stored(a)).to.deep.equal([]);
    expect((await refused(client.getUser(app.app.id, 'external_id', 'gone-droid'))).code).to.equal(404);
  });
});
