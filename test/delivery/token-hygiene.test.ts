// Token hygiene as Apple asks, against the real PostgreSQL and two simulators (the production and
// the sandbox gateway): each install goes through its own environment's gateway; a 410 unsubscribes
// only when Apple's timestamp is later than the install's last registration; BadDeviceToken and
// DeviceTokenNotForTopic unsubscribe with the reason; registering the token again (POST, or a PATCH
// with a token) subscribes it. With a certificate, the other gateway's BadCertificateEnvironment
// fails that install only.
import { expect } from 'chai';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useTestEnv } from '../env/index.js';
import { createClientCertificate, ensureCa, startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import { setCredentials } from '../../core/apps/app-store.js';
import { startSender, type Sender } from '../../sender/index.js';
import { silentLogger } from '../../core/log.js';
import { DEFAULT_RETENTION } from '../../core/send/retention.js';
import { patchSubscription, readSubscription, upsertSubscription } from '../../core/subscriptions/subscription-store.js';
import { createTestApp, send, token, waitFinal, type TestApp } from './fixtures.js';

/** A sender whose production and sandbox gateways are the two simulators (their CAs trusted). */
async function senderOnBothGateways(env: ReturnType<typeof useTestEnv>, production: ApnsSim, sandbox: ApnsSim): Promise<Sender> {
  const ca = [...new Set([await readFile(production.caFile, 'utf8'), await readFile(sandbox.caFile, 'utf8')])].join('\n');
  return startSender({
    pool: env.pool,
    bus: env.bus,
    logger: silentLogger(),
    redis: env.redis,
    redisPrefix: env.redisPrefix,
    apns: { url: production.url, sandboxUrl: sandbox.url, ca },
    concurrency: 2,
    worker: { leaseMs: 5000, backoff: { baseMs: 20, maxMs: 200 } },
    dutyEveryMs: 200,
    retention: DEFAULT_RETENTION,
  });
}

async function stopAll(sender: Sender | undefined, production: ApnsSim | undefined, sandbox: ApnsSim | undefined): Promise<void> {
  await sender?.stop();
  await production?.close();
  await sandbox?.close();
}

describe('delivery: token hygiene', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  const dayAgo = Date.now() - 86_400_000;
  let production: ApnsSim;
  let sandbox: ApnsSim;
  let sender: Sender;
  let main: TestApp;

  before(async () => {
    main = await createTestApp(env.pool, 'hygiene');
    const keys = [{ keyId: main.key.keyId, teamId: main.teamId, publicKey: main.key.publicKeyPem }];
    const rules = [
      { prefix: 'old4', status: 410, timestamp: dayAgo },
      { prefix: 'new4', status: 410 },
      { prefix: 'bad0', status: 400, reason: 'BadDeviceToken' },
      { prefix: 'f0f0', status: 400, reason: 'DeviceTokenNotForTopic' },
      { prefix: '1a1a', status: 400, reason: 'PayloadTooLarge' },
    ];
    production = await startApnsSim({ keys, rules });
    sandbox = await startApnsSim({ keys, rules });
    sender = await senderOnBothGateways(env, production, sandbox);
  });

  after(() => stopAll(sender, production, sandbox));

  beforeEach(() => {
    production.reset();
    sandbox.reset();
  });

  const register = (appId: string, t: string, fields: Parameters<typeof upsertSubscription>[2] | object = {}) =>
    upsertSubscription(env.pool, appId, { token: t, ...fields });

  it('sends each install through its own environment\'s gateway; an App holds both', async () => {
    const app = (await createTestApp(env.pool, 'both', { key: main.key, teamId: main.teamId })).app;
    const appDefault = [token('a1', 1), token('a1', 2), token('a1', 3)];
    const development = [token('d1', 1), token('d1', 2)];
    const adHoc = [token('ad', 1)];
    for (const t of appDefault) await register(app.id, t);
    for (const t of development) await register(app.id, t, { environment: 'sandbox' });
    for (const t of adHoc) await register(app.id, t, { environment: 'production' });
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'x' } });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'approved', sent: 6, failed: 0 });
    for (const t of [...appDefault, ...adHoc]) {
      expect(production.deliveries(t), t).to.have.length(1);
      expect(sandbox.deliveries(t), t).to.have.length(0);
    }
    for (const t of development) {
      expect(sandbox.deliveries(t), t).to.have.length(1);
      expect(production.deliveries(t), t).to.have.length(0);
    }
  });

  it('a 410 unsubscribes only when Apple\'s timestamp is later than the last registration', async () => {
    const app = (await createTestApp(env.pool, 'gone', { key: main.key, teamId: main.teamId })).app;
    const stale = await register(app.id, token('old4', 1)); // Apple's 410 is a day older than this registration
    const gone = await register(app.id, token('new4', 1)); // Apple's 410 is now: later
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'x' } });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ sent: 0, failed: 2 });
    expect(await readSubscription(env.pool, app.id, stale.id)).to.include({ subscribed: true, unsubscribed_reason: null });
    expect(await readSubscription(env.pool, app.id, gone.id)).to.include({ subscribed: false, unsubscribed_reason: 'Unregistered' });
  });

  it('BadDeviceToken and DeviceTokenNotForTopic unsubscribe with the reason; other 400s only fail', async () => {
    const app = (await createTestApp(env.pool, 'refused', { key: main.key, teamId: main.teamId })).app;
    const bad = await register(app.id, token('bad0', 1), { environment: 'sandbox' });
    const topic = await register(app.id, token('f0f0', 1));
    const large = await register(app.id, token('1a1a', 1));
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'x' } });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ sent: 0, failed: 3 });
    expect(sandbox.attempts(token('bad0', 1))).to.equal(1);
    expect(await readSubscription(env.pool, app.id, bad.id)).to.include({ subscribed: false, unsubscribed_reason: 'BadDeviceToken', environment: 'sandbox' });
    expect(await readSubscription(env.pool, app.id, topic.id)).to.include({ subscribed: false, unsubscribed_reason: 'DeviceTokenNotForTopic' });
    expect(await readSubscription(env.pool, app.id, large.id)).to.include({ subscribed: true, unsubscribed_reason: null });
    const next = await send(env, app, { included_segments: ['All'], contents: { en: 'y' } });
    expect(next.body.estimate).to.equal(1);
  });

  it('registering a token Apple refused subscribes it again; one the app unsubscribed stays so until it says otherwise', async () => {
    const app = (await createTestApp(env.pool, 'again', { key: main.key, teamId: main.teamId })).app;
    const gone = await register(app.id, token('new4', 2));
    const optedOut = await register(app.id, token('a2', 1), { subscribed: false });
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'x' } });
    await waitFinal(env.pool, created.body.id);
    expect(await readSubscription(env.pool, app.id, gone.id)).to.include({ subscribed: false, unsubscribed_reason: 'Unregistered' });
    expect(await readSubscription(env.pool, app.id, optedOut.id)).to.include({ subscribed: false, unsubscribed_reason: 'app' });

    const before = (await readSubscription(env.pool, app.id, gone.id))!.registered_at;
    await register(app.id, token('new4', 2), { language: 'fr' });
    await register(app.id, token('a2', 1), { language: 'fr' });
    const again = (await readSubscription(env.pool, app.id, gone.id))!;
    expect(again).to.include({ subscribed: true, unsubscribed_reason: null, language: 'fr' });
    expect(Date.parse(again.registered_at)).to.be.greaterThan(Date.parse(before));
    expect(await readSubscription(env.pool, app.id, optedOut.id)).to.include({ subscribed: false, unsubscribed_reason: 'app' });
    await register(app.id, token('a2', 1), { subscribed: true });
    expect(await readSubscription(env.pool, app.id, optedOut.id)).to.include({ subscribed: true, unsubscribed_reason: null });
  });

  it('a PATCH with a token subscribes an install Apple had unsubscribed again, as a POST does; one the app unsubscribed stays so', async () => {
    const app = (await createTestApp(env.pool, 'patched', { key: main.key, teamId: main.teamId })).app;
    const gone = await register(app.id, token('new4', 3));
    const optedOut = await register(app.id, token('a3', 1), { subscribed: false });
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'x' } });
    await waitFinal(env.pool, created.body.id);
    expect(await readSubscription(env.pool, app.id, gone.id)).to.include({ subscribed: false, unsubscribed_reason: 'Unregistered' });

    // The SDK's next session: the install's id with the fresh token APNs gave it.
    expect(await patchSubscription(env.pool, app.id, gone.id, { token: token('a3', 2) })).to.equal(true);
    expect(await readSubscription(env.pool, app.id, gone.id)).to.include({ subscribed: true, unsubscribed_reason: null, token: token('a3', 2) });
    expect(await patchSubscription(env.pool, app.id, optedOut.id, { token: token('a3', 3) })).to.equal(true);
    expect(await readSubscription(env.pool, app.id, optedOut.id)).to.include({ subscribed: false, unsubscribed_reason: 'app' });
    // The next send reaches the install subscribed again, not the one the app unsubscribed.
    const again = await send(env, app, { included_segments: ['All'], contents: { en: 'y' } });
    expect(again.body.estimate).to.equal(1);
  });
});

describe('delivery: token hygiene with a push certificate', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let production: ApnsSim;
  let sandbox: ApnsSim;
  let sender: Sender;

  before(async () => {
    // One CA for both gateways, as Apple's are one service; the client certificate is the App's.
    const certDir = await mkdtemp(join(tmpdir(), 'herald-cert-environment-'));
    production = await startApnsSim({ auth: 'certificate', certDir });
    // Apple's sandbox gateway refuses a certificate issued for production, for every device.
    sandbox = await startApnsSim({ auth: 'certificate', certDir, rules: [{ prefix: '', status: 403, reason: 'BadCertificateEnvironment' }] });
    sender = await senderOnBothGateways(env, production, sandbox);
  });

  after(() => stopAll(sender, production, sandbox));

  it("a development install (test_type 1) refused with BadCertificateEnvironment fails alone; the broadcast goes on", async () => {
    const { app } = await createTestApp(env.pool, 'certenv');
    const cert = await createClientCertificate(production.certDir, await ensureCa(production.certDir), 'client-certenv', app.bundleId);
    await setCredentials(env.pool, app.id, { kind: 'certificate', material: Buffer.from(cert.cert + cert.key) });
    const onProduction = [token('c1', 1), token('c1', 2), token('c1', 3)];
    for (const t of onProduction) await upsertSubscription(env.pool, app.id, { token: t });
    const development = await upsertSubscription(env.pool, app.id, { token: token('d2', 1), environment: 'sandbox' });
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'x' } });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'approved', sent: 3, failed: 1 });
    for (const t of onProduction) expect(production.deliveries(t), t).to.have.length(1);
    expect(sandbox.deliveries(token('d2', 1))).to.have.length(1);
    // The token itself is fine (another build or a .p8 key reaches it): the install stays subscribed.
    expect(await readSubscription(env.pool, app.id, development.id)).to.include({ subscribed: true, unsubscribed_reason: null });
  });
});
