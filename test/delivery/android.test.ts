// Android delivery end to end (issue 39 points 3-5): an App with APNs and FCM credentials, iOS and
// Android installs, sends to all planned and delivered by a sender to apns-sim and fcm-sim at once,
// counted by the same tally. The longest registration token reaches FCM as stored; UNREGISTERED
// unsubscribes the install with FCM's code; a round of 503s is waited out (0 failed); an App
// without FCM credentials skips its Android devices; FCM refusing the service account leaves them
// out, never failed, while the iOS part is sent.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import type { Pool } from '../../core/store/db.js';
import { getApp, setCredentials } from '../../core/apps/app-store.js';
import { ApnsClients } from '../../core/apns/clients.js';
import { FcmClients } from '../../core/fcm/clients.js';
import { silentLogger } from '../../core/log.js';
import { validateSendRequest } from '../../core/validation/validate-send.js';
import { Delivery } from '../../sender/deliver.js';
import { createSenderMetrics } from '../../sender/metrics.js';
import { setFcmCredentials } from '../../core/fcm/credentials-store.js';
import { fcmRefusal } from '../../core/fcm/refusals.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import { startFcmSim, type FcmSim } from '../../fcm-sim/index.js';
import type { Sender } from '../../sender/index.js';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../support/wait.js';
import { addDevices, createTestApp, send, startTestSender, waitFinal, type TestApp } from './fixtures.js';
import { makeServiceAccount } from '../fcm/helpers.js';

/** Inserts Android installs with these tokens (and external ids, when given); returns them. */
async function addAndroid(pool: Pool, appId: string, tokens: string[], language: string | null = null, externalIds?: string[]): Promise<string[]> {
  await pool.query(
    `INSERT INTO subscriptions (id, app_id, token, language, platform, external_id, last_active)
     SELECT gen_random_uuid(), $1, t, $3, 'android', e, now() FROM unnest($2::text[], $4::text[]) AS u(t, e)`,
    [appId, tokens, language, externalIds ?? tokens.map(() => null)],
  );
  return tokens;
}

const fcmToken = (prefix: string, i: number) => `${prefix}${i}:APA91b${'x'.repeat(140)}`;

describe('delivery: Android through FCM beside iOS through APNs', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  const sa = makeServiceAccount('herald-android');
  let apns: ApnsSim;
  let fcm: FcmSim;
  let sender: Sender;
  let n = 0;

  const simAccounts = [{ clientEmail: sa.account.clientEmail, projectId: sa.account.projectId, publicKey: sa.publicKey }];
  let certDir: string;

  before(async () => {
    certDir = await mkdtemp(join(tmpdir(), 'herald-android-'));
    fcm = await startFcmSim({ accounts: simAccounts, certDir });
    apns = await startApnsSim();
    sender = await startTestSender(env, apns, {}, { fcm: { url: fcm.url, ca: await readFile(fcm.caFile, 'utf8') } });
  });
  after(async () => {
    await sender?.stop();
    await Promise.all([apns?.close(), fcm?.close()]);
  });
  beforeEach(() => {
    apns.reset();
    fcm.reset();
    fcm.setRules([]);
  });

  /** A new App with APNs credentials and, unless `fcm` is false, FCM ones (the account `account`). */
  async function appWith(opts: { fcm?: boolean; account?: typeof sa.account } = {}): Promise<TestApp> {
    const app = await createTestApp(env.pool, `android${++n}`);
    if (opts.fcm !== false) await setFcmCredentials(env.pool, app.app.id, { ...(opts.account ?? sa.account), tokenUri: fcm.tokenUri });
    return { ...app, app: (await getApp(env.pool, app.app.id))! };
  }

  it('sends to all: iOS to apns-sim, Android to fcm-sim with its message, the 4,096-character token as stored, one access token', async () => {
    const { app } = await appWith();
    const ios = await addDevices(env.pool, app.id, 20, { prefix: 'c1' });
    const longest = 'L:'.repeat(2048);
    const android = await addAndroid(env.pool, app.id, [...Array.from({ length: 19 }, (_, i) => fcmToken('d', i)), longest], 'fr');
    const created = await send(env, app, {
      contents: { en: 'Hello', fr: 'Bonjour' },
      headings: { en: 'News', fr: 'Nouvelles' },
      included_segments: ['Subscribed Users'],
      data: { order: '12' },
      url: 'https://example.com/o/12',
      priority: 5,
      ttl: 600,
    });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'approved', sent: 40, failed: 0, skipped: 0 });
    expect(apns.stats().requests).to.equal(20);
    expect(new Set(apns.deliveries().map((d) => d.token))).to.deep.equal(new Set(ios));
    expect(new Set(fcm.deliveries().map((d) => d.token))).to.deep.equal(new Set(android));
    const got = fcm.deliveries(longest);
    expect(got).to.have.length(1);
    expect(got[0].projectId).to.equal('herald-android');
    expect(got[0].message).to.deep.equal({
      token: longest,
      notification: { title: 'Nouvelles', body: 'Bonjour' },
      android: { priority: 'NORMAL', ttl: '600s' },
      data: { order: '12', custom: JSON.stringify({ i: String(created.body.id), u: 'https://example.com/o/12', a: { order: '12' } }) },
    });
    expect(fcm.stats().tokensMinted).to.deep.equal({ [sa.account.clientEmail]: 1 });
  });

  it('UNREGISTERED and SENDER_ID_MISMATCH fail the device and unsubscribe the install with FCM\'s code; INVALID_ARGUMENT keeps it', async () => {
    const { app } = await appWith();
    await addDevices(env.pool, app.id, 3, { prefix: 'c2' });
    await addAndroid(env.pool, app.id, [fcmToken('ok', 1), fcmToken('unreg', 1), fcmToken('mismatch', 1), fcmToken('invalid', 1)]);
    fcm.setRules([
      { prefix: 'unreg', status: 404 },
      { prefix: 'mismatch', status: 403 },
      { prefix: 'invalid', status: 400 },
    ]);
    const created = await send(env, app, { contents: { en: 'Hi' }, included_segments: ['Subscribed Users'] });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ sent: 4, failed: 3, skipped: 0 });
    const rows = await env.pool.query<{ token: string; subscribed: boolean; unsubscribed_reason: string | null }>(
      "SELECT token, subscribed, unsubscribed_reason FROM subscriptions WHERE app_id = $1 AND platform = 'android' ORDER BY token",
      [app.id],
    );
    expect(rows.rows.map((r) => [r.token.split(':')[0], r.subscribed, r.unsubscribed_reason])).to.deep.equal([
      ['invalid1', true, null],
      ['mismatch1', false, 'SENDER_ID_MISMATCH'],
      ['ok1', true, null],
      ['unreg1', false, 'UNREGISTERED'],
    ]);
  });

  it('a round of 503s with Retry-After is waited out: every device sent, none failed', async () => {
    const { app } = await appWith();
    await addDevices(env.pool, app.id, 5, { prefix: 'c3' });
    const android = await addAndroid(env.pool, app.id, Array.from({ length: 10 }, (_, i) => fcmToken('busy', i)));
    fcm.setRules([{ prefix: 'busy', status: 503, times: 1, retryAfter: 1 }]);
    const created = await send(env, app, { contents: { en: 'Hi' }, included_segments: ['Subscribed Users'] });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ sent: 15, failed: 0, skipped: 0 });
    expect(android.map((t) => fcm.attempts(t))).to.deep.equal(new Array(10).fill(2));
    expect(fcm.stats().byErrorCode).to.deep.equal({ UNAVAILABLE: 10 });
  });

  it('an App without FCM credentials: its Android devices are skipped, its iOS ones sent', async () => {
    const { app } = await appWith({ fcm: false });
    await addDevices(env.pool, app.id, 4, { prefix: 'c4' });
    await addAndroid(env.pool, app.id, [fcmToken('none', 1), fcmToken('none', 2), fcmToken('none', 3)]);
    const created = await send(env, app, { contents: { en: 'Hi' }, included_segments: ['Subscribed Users'] });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'approved', sent: 4, failed: 0, skipped: 3 });
    expect(fcm.stats().requests).to.equal(0);
  });

  it('FCM refusing the service account: the Android devices are left out, none failed; the iOS part is sent', async () => {
    const stranger = makeServiceAccount('herald-android', sa.account.clientEmail); // the account, another key
    const { app } = await appWith({ account: stranger.account });
    await addDevices(env.pool, app.id, 4, { prefix: 'c5' });
    await addAndroid(env.pool, app.id, [fcmToken('ref', 1), fcmToken('ref', 2)]);
    const created = await send(env, app, { contents: { en: 'Hi' }, included_segments: ['Subscribed Users'] });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'approved', sent: 4, failed: 0, skipped: 0 });
    const row = await env.pool.query('SELECT left_out FROM sends WHERE id = $1', [created.body.id]);
    expect(row.rows[0].left_out).to.equal(2);
    expect(fcm.stats().requests).to.equal(0);
    expect(await fcmRefusal(env.pool, app.id)).to.include({ reason: 'TOKEN_REFUSED' });
    // The right key applied: the refusal concerns replaced credentials, and the next send reaches Android.
    await setFcmCredentials(env.pool, app.id, { ...sa.account, tokenUri: fcm.tokenUri });
    expect(await fcmRefusal(env.pool, app.id)).to.equal(undefined);
    const again = await send(env, app, { contents: { en: 'Hi' }, included_segments: ['Subscribed Users'] });
    expect((await waitFinal(env.pool, again.body.id)).final).to.include({ sent: 6, failed: 0 });
  });

  it('FCM unreachable mid-send (its process gone, then back on the same ports): the Android devices are held, then sent; none failed', async () => {
    const { app } = await appWith();
    const ios = await addDevices(env.pool, app.id, 3, { prefix: 'c6' });
    const android = await addAndroid(env.pool, app.id, Array.from({ length: 5 }, (_, i) => fcmToken('gone', i)));
    const ports = { port: Number(new URL(fcm.url).port), tokenPort: Number(new URL(fcm.tokenUri).port) };
    await fcm.close();
    const created = await send(env, app, { contents: { en: 'Hi' }, included_segments: ['Subscribed Users'] });
    // The iOS part is sent while FCM is out; the chunk waits on its Android part.
    await waitFor('the iOS devices at apns-sim', () => ios.every((t) => apns.deliveries(t).length === 1));
    const held = await env.pool.query('SELECT status, sent, failed FROM sends WHERE id = $1', [created.body.id]);
    expect(held.rows[0]).to.include({ sent: 0, failed: 0 });
    fcm = await startFcmSim({ accounts: simAccounts, certDir, ...ports });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ sent: 8, failed: 0, skipped: 0 });
    expect(android.map((t) => fcm.deliveries(t).length)).to.deep.equal([1, 1, 1, 1, 1]);
  });

  it('a list of users with installs of both platforms counts each user once: sent when any install took it', async () => {
    const { app } = await appWith();
    await addDevices(env.pool, app.id, 1, { prefix: 'c7a', externalIdPrefix: 'both' }); // both1: iOS
    await addDevices(env.pool, app.id, 1, { prefix: 'c7b', externalIdPrefix: 'ios' }); // ios1: iOS only
    await addAndroid(env.pool, app.id, [fcmToken('b', 1), fcmToken('unreg', 7)], null, ['both1', 'droid1']);
    fcm.setRules([{ prefix: 'unreg', status: 404 }]);
    const created = await send(env, app, { contents: { en: 'Hi' }, include_external_ids: ['both1', 'ios1', 'droid1', 'nobody'] });
    const { final } = await waitFinal(env.pool, created.body.id);
    // both1: its iOS and Android installs took it (sent once); ios1 sent; droid1's only install is
    // UNREGISTERED (failed); nobody has no install (skipped).
    expect(final).to.include({ sent: 2, failed: 1, skipped: 1 });
    expect(fcm.deliveries(fcmToken('b', 1))).to.have.length(1);
  });

  // The accept path makes a send of an App without APNs credentials a draft until it reads FCM's
  // (issue 39's "neither credential is a draft": the API's part), so the sender's own rule is driven
  // here through its Delivery, with the real simulators and store.
  it('an App with FCM credentials only: the sender skips its iOS devices (even in a chunk of iOS devices alone) and sends its Android ones', async () => {
    const { app, key: appKey } = await appWith();
    await setCredentials(env.pool, app.id, null);
    const fcmOnly = (await getApp(env.pool, app.id))!;
    expect(fcmOnly).to.include({ hasApnsCredentials: false, hasFcmCredentials: true });
    const ca = await readFile(fcm.caFile, 'utf8');
    const clients = new ApnsClients(env.pool, { url: apns.url, ca: await readFile(apns.caFile, 'utf8') }, silentLogger());
    // The seam of the fleet-wide token store: here a wrapper that notes which App asked.
    const wrapped: string[] = [];
    const fcmClients = new FcmClients(env.pool, { url: fcm.url, ca, tokens: (account, inProcess) => (wrapped.push(account.projectId), inProcess) }, silentLogger());
    try {
      const delivery = new Delivery({ logger: silentLogger(), metrics: createSenderMetrics(), clients, fcm: fcmClients, settings: { maxAttempts: 2, gatewayHoldMs: 10_000, backoff: { baseMs: 10, maxMs: 10 } }, stopping: () => false });
      const request = validateSendRequest({ body: { app_id: app.id, contents: { en: 'Hi' }, included_segments: ['Subscribed Users'] }, app: { id: app.id, bundleId: app.bundleId, segmentNames: [] }, now: new Date() });
      const ctx = { sendId: 1, request, app: fcmOnly, payloads: new Map<string, string>(), at: Date.now() };
      const device = (i: number, platform: 'ios' | 'android') => ({ entry: `e${platform}${i}`, subscriptionId: `s${platform}${i}`, token: platform === 'ios' ? 'ab'.repeat(32) : fcmToken('only', i), language: null, environment: null, platform });
      const mixed = await delivery.deliver(ctx, { planned: 4, credentialsVersion: 0 }, [device(1, 'ios'), device(2, 'ios'), device(1, 'android'), device(2, 'android')], { askedApple: false }, silentLogger());
      expect(mixed).to.include({ sent: 2, failed: 0, skipped: 2, leftOut: 0 });
      expect(mixed.stop).to.equal(undefined);
      const iosAlone = await delivery.deliver(ctx, { planned: 2, credentialsVersion: 0 }, [device(3, 'ios'), device(4, 'ios')], { askedApple: false }, silentLogger());
      expect(iosAlone).to.include({ sent: 0, failed: 0, skipped: 2, leftOut: 0 });
      expect(iosAlone.stop).to.equal(undefined);
      expect(apns.stats().requests).to.equal(0);
      expect(fcm.stats().byStatus).to.deep.equal({ 200: 2 });
      expect(wrapped).to.have.length(1);
      // A send narrowed to iOS (isAndroid false): its Android devices are skipped whatever loaded them.
      const narrowed = { ...ctx, request: { ...request, platforms: ['ios' as const] }, app: { ...fcmOnly, hasCredentials: true, hasApnsCredentials: true } };
      await setCredentials(env.pool, app.id, { kind: 'token', keyId: 'KEY0000001', teamId: 'TEAM000001', material: Buffer.from(appKey.privateKeyP8) });
      const iosOnly = await delivery.deliver(narrowed, { planned: 2, credentialsVersion: 1 }, [device(6, 'ios'), device(4, 'android')], { askedApple: false }, silentLogger());
      expect(iosOnly).to.include({ sent: 1, failed: 0, skipped: 1 });
      expect(fcm.stats().byStatus).to.deep.equal({ 200: 2 });
      // Neither credential: the send stops, as before Android (nothing failed).
      await setCredentials(env.pool, app.id, null);
      await setFcmCredentials(env.pool, app.id, null);
      const neither = await delivery.deliver(ctx, { planned: 2, credentialsVersion: 0 }, [device(5, 'ios'), device(3, 'android')], { askedApple: false }, silentLogger());
      expect(neither).to.include({ sent: 0, failed: 0 });
      expect(neither.stop).to.be.a('string');
    } finally {
      await Promise.all([clients.close(), fcmClients.close()]);
    }
  });
});
