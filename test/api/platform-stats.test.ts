// Per-platform counts, events and files (issue 39 point 6), through @onesignal/node-onesignal
// unchanged against the real api, a real sender, apns-sim and fcm-sim: a send to 3 iOS and 2
// Android installs, one of each refused by its gateway, reads platform_delivery_stats ios
// {successful 2, failed 1} and android {successful 1, failed 1}; the opens count under the
// platform of their install; exportEvents says each install's device_type (0 iOS, 1 Android);
// getOutcomes counts the opens of both; a message over FCM's 4,096 bytes is a 422 naming Android.
import { expect } from 'chai';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as OneSignal from '@onesignal/node-onesignal';
import { useTestEnv } from '../env/index.js';
import { addDevices, startDeliveryStack, waitFinal, type DeliveryStack } from '../delivery/fixtures.js';
import { setFcmCredentials } from '../../core/fcm/credentials-store.js';
import { startFcmSim, type FcmSim } from '../../fcm-sim/index.js';
import { makeServiceAccount } from '../fcm/helpers.js';
import { nextBatch } from '../../core/events/batch.js';
import { refused } from '../support/onesignal.js';
import { parseCsv } from '../support/csv.js';

const fcmToken = (prefix: string, i: number) => `${prefix}${i}:APA91b${'x'.repeat(140)}`;

describe('api: platform_delivery_stats, events files and outcomes per platform (issue 39 point 6)', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  const sa = makeServiceAccount('herald-platform-stats');
  let fcm: FcmSim;
  let stack: DeliveryStack;
  let appId: string;
  let sendId: string;
  /** Subscription ids by platform and outcome. */
  const ids = { iosSent: [] as string[], iosFailed: '', androidSent: '', androidFailed: '' };

  const counts = (successful: number, failed: number, converted: number) =>
    Object.assign(new OneSignal.DeliveryData(), { successful, failed, errored: 0, converted });
  const open = (subscriptionId: string) =>
    stack.api.request('POST', `/api/v1/notifications/${sendId}/opened`, { body: { app_id: appId, subscription_id: subscriptionId } });

  before(async () => {
    fcm = await startFcmSim({ accounts: [{ clientEmail: sa.account.clientEmail, projectId: sa.account.projectId, publicKey: sa.publicKey }], certDir: await mkdtemp(join(tmpdir(), 'herald-platform-stats-')) });
    fcm.setRules([{ prefix: 'unreg', status: 404 }]);
    stack = await startDeliveryStack(env, 'platform-stats', { rules: [{ prefix: 'bad0', status: 400, reason: 'BadDeviceToken' }] }, { fcm: { url: fcm.url, ca: await readFile(fcm.caFile, 'utf8') } });
    appId = stack.app.app.id;
    await setFcmCredentials(env.pool, appId, { ...sa.account, tokenUri: fcm.tokenUri });
    // A destination that never answers: the send's events are recorded, and read below as a batch.
    await env.pool.query(`INSERT INTO event_destinations (app_id, name, url, secret) VALUES ($1, 'held', 'http://127.0.0.1:1/', '\\x00')`, [appId]);
    await addDevices(env.pool, appId, 2, { prefix: 'a0' });
    await addDevices(env.pool, appId, 1, { prefix: 'bad0' });
    await env.pool.query(
      `INSERT INTO subscriptions (id, app_id, token, platform, last_active) SELECT gen_random_uuid(), $1, t, 'android', now() FROM unnest($2::text[]) AS t`,
      [appId, [fcmToken('ok', 1), fcmToken('unreg', 1)]],
    );
    const rows = await env.pool.query<{ id: string; token: string }>('SELECT id::text, token FROM subscriptions WHERE app_id = $1 ORDER BY seq', [appId]);
    for (const r of rows.rows) {
      if (r.token.startsWith('bad0')) ids.iosFailed = r.id;
      else if (r.token.startsWith('ok')) ids.androidSent = r.id;
      else if (r.token.startsWith('unreg')) ids.androidFailed = r.id;
      else ids.iosSent.push(r.id);
    }
    const sent = await stack.client.createNotification(Object.assign(new OneSignal.Notification(), { app_id: appId, contents: { en: 'Both' }, included_segments: ['Subscribed Users'] }));
    sendId = String(sent.id);
    const { final } = await waitFinal(env.pool, Number(sendId));
    expect(final).to.include({ sent: 3, failed: 2, skipped: 0 });
  });
  after(async () => {
    await stack?.close();
    await fcm?.close();
  });

  it('getNotification and getNotifications: ios {successful 2, failed 1}, android {successful 1, failed 1}, no received', async () => {
    const n = await stack.client.getNotification(appId, sendId);
    expect(n.platform_delivery_stats?.ios).to.deep.equal(counts(2, 1, 0));
    expect(n.platform_delivery_stats?.android).to.deep.equal(counts(1, 1, 0));
    expect(n).to.include({ successful: 3, failed: 2 });
    const page = await stack.client.getNotifications(appId, 1);
    expect(page.notifications?.[0].platform_delivery_stats?.android).to.deep.equal(counts(1, 1, 0));
    expect(page.notifications?.[0].platform_delivery_stats?.ios).to.deep.equal(counts(2, 1, 0));
  });

  it('an open counts under the platform of its install, once; converted is their sum', async () => {
    expect((await open(ids.androidSent)).status).to.equal(200);
    expect((await open(ids.androidSent)).status).to.equal(200); // a repeat: counted once
    expect((await open(ids.iosSent[0])).status).to.equal(200);
    const n = await stack.client.getNotification(appId, sendId);
    expect(n.platform_delivery_stats?.ios).to.deep.equal(counts(2, 1, 1));
    expect(n.platform_delivery_stats?.android).to.deep.equal(counts(1, 1, 1));
    expect(n.converted).to.equal(2);
  });

  it('events: subscription_device_type is each install\'s platform (sent, failed, unsubscribed, clicked)', async () => {
    const batch = await nextBatch(env.pool, appId, 'held', { through: 0, offset: 0 }, null, 100);
    const types = new Map<string, Set<string>>();
    for (const e of batch!.events) {
      if (!e.subscription) continue;
      const key = `${e.event.kind} ${e.subscription.id}`;
      types.set(key, (types.get(key) ?? new Set()).add(e.event.subscription_device_type!));
    }
    expect(Object.fromEntries([...types].map(([k, v]) => [k, [...v].join()]))).to.deep.equal({
      [`message.push.sent ${ids.iosSent[0]}`]: 'iOS',
      [`message.push.sent ${ids.iosSent[1]}`]: 'iOS',
      [`message.push.sent ${ids.androidSent}`]: 'Android',
      [`message.push.failed ${ids.iosFailed}`]: 'iOS',
      [`subscription.push.unsubscribed ${ids.iosFailed}`]: 'iOS',
      [`message.push.failed ${ids.androidFailed}`]: 'Android',
      [`subscription.push.unsubscribed ${ids.androidFailed}`]: 'Android',
      [`message.push.clicked ${ids.androidSent}`]: 'Android',
      [`message.push.clicked ${ids.iosSent[0]}`]: 'iOS',
    });
  });

  it('getNotificationHistory: device_type after OneSignal\'s columns, 0 iOS and 1 Android, sent and clicked', async () => {
    const file = async (events: 'sent' | 'clicked') => {
      const answer = await stack.client.getNotificationHistory(sendId, Object.assign(new OneSignal.GetNotificationHistoryRequestBody(), { app_id: appId, events }));
      const [header, ...rest] = parseCsv(gunzipSync(Buffer.from(await (await fetch(answer.destination_url!)).arrayBuffer())).toString('utf8'));
      expect(header.at(-1)).to.equal('device_type');
      return Object.fromEntries(rest.map((r) => [r[header.indexOf('player_id')], r[header.indexOf('device_type')]]));
    };
    expect(await file('sent')).to.deep.equal({ [ids.iosSent[0]]: '0', [ids.iosSent[1]]: '0', [ids.androidSent]: '1' });
    expect(await file('clicked')).to.deep.equal({ [ids.iosSent[0]]: '0', [ids.androidSent]: '1' });
  });

  it('exportEvents: device_type 0 for iOS installs, 1 for Android ones', async () => {
    const answer = await stack.client.exportEvents(sendId, appId);
    const res = await fetch(answer.csv_file_url!);
    const [header, ...rest] = parseCsv(gunzipSync(Buffer.from(await res.arrayBuffer())).toString('utf8'));
    const byId = new Map(rest.map((r) => [r[header.indexOf('subscription_id')], r[header.indexOf('device_type')]]));
    expect(Object.fromEntries(byId)).to.deep.equal({
      [ids.iosSent[0]]: '0', [ids.iosSent[1]]: '0', [ids.iosFailed]: '0', [ids.androidSent]: '1', [ids.androidFailed]: '1',
    });
  });

  it('getOutcomes: os__click.count counts the opens of both platforms, each under its own device type', async () => {
    const clicks = async (platforms?: string) => (await stack.client.getOutcomes(appId, 'os__click.count', undefined, undefined, platforms)).outcomes?.[0].value;
    expect(await clicks()).to.equal(2);
    expect(await clicks('0')).to.equal(1);
    expect(await clicks('1')).to.equal(1);
    expect(await clicks('0,1')).to.equal(2);
    expect(await clicks('5')).to.equal(0);
  });

  // Last: a send accepted here would be the app's newest, which the list test reads first.
  it('createNotification: a message over FCM\'s 4,096 bytes is a 422 naming Android; over both, naming both; nothing recorded', async () => {
    const before = (await env.pool.query('SELECT count(*)::int AS n FROM sends WHERE app_id = $1', [appId])).rows[0].n;
    const notification = (changes: Record<string, unknown>) => Object.assign(new OneSignal.Notification(), { app_id: appId, included_segments: ['Subscribed Users'], contents: { en: 'Big' }, ...changes });
    // Two data values of 1,100 characters: about 2,300 bytes for Apple, twice that for FCM.
    const data = { a: 'v'.repeat(1100), b: 'w'.repeat(1100) };
    const android = await refused(stack.client.createNotification(notification({ data })));
    expect([android.code, android.body.errors]).to.deep.equal([422, ['This notification is larger than 4KB for Android (FCM counts the message without its token). It is not cut short.']]);
    const both = await refused(stack.client.createNotification(notification({ data, contents: { en: 'x'.repeat(2000) } })));
    expect([both.code, both.body.errors]).to.deep.equal([422, ['This notification is larger than 4KB for both iOS and Android. It is not cut short.']]);
    const ios = await refused(stack.client.createNotification(notification({ data, contents: { en: 'x'.repeat(2000) }, is_android: false })));
    expect([ios.code, ios.body.errors]).to.deep.equal([422, ['This notification is larger than 4KB. It is not cut short.']]);
    expect((await env.pool.query('SELECT count(*)::int AS n FROM sends WHERE app_id = $1', [appId])).rows[0].n).to.equal(before);
  });

  it('the 4 KB rule holds for the platforms the App can reach: without FCM credentials the Android size is not held, with them it is', async () => {
    const notification = (changes: Record<string, unknown>) => Object.assign(new OneSignal.Notification(), { app_id: appId, included_segments: ['Subscribed Users'], contents: { en: 'Big' }, ...changes });
    const data = { a: 'v'.repeat(1100), b: 'w'.repeat(1100) };
    await setFcmCredentials(env.pool, appId, null);
    try {
      // An iOS-only App (APNs credentials alone): Apple's 4 KB is the rule, FCM's is not its concern.
      const accepted = await stack.client.createNotification(notification({ data }));
      expect(accepted.id).to.be.a('number');
      const iosOver = await refused(stack.client.createNotification(notification({ data, contents: { en: 'x'.repeat(2000) } })));
      expect([iosOver.code, iosOver.body.errors]).to.deep.equal([422, ['This notification is larger than 4KB. It is not cut short.']]);
    } finally {
      await setFcmCredentials(env.pool, appId, { ...sa.account, tokenUri: fcm.tokenUri });
    }
    const android = await refused(stack.client.createNotification(notification({ data })));
    expect(android.code).to.equal(422);
  });
});
