// The App controller on a real kube-apiserver, driven with kubectl: credentials, keys, billing,
// segments, deletion, and informers that survive an apiserver restart.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, makeP8 } from '../support/apps.js';
import { getAppByName } from '../../core/apps/app-store.js';
import { createKey, listKeys } from '../../core/apps/keys.js';
import { condition, manifest, ok, startTestController, useControlPlane, waitFor } from './harness.js';
import type { RunningController } from '../../controller/index.js';

const KEY_ID = 'ABC123DEFG';

/** A self-signed certificate valid only during 2020 (OpenSSL 3.0's `req` cannot set past dates; `ca` can). */
function expiredCertificate(): string {
  const dir = mkdtempSync(join(tmpdir(), 'herald-cert-'));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '01\n');
  writeFileSync(join(dir, 'ca.cnf'), '[ca]\ndefault_ca = d\n[d]\ndatabase = index.txt\nnew_certs_dir = .\nserial = serial\ndefault_md = sha256\npolicy = p\n[p]\ncommonName = supplied\n');
  run(['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'k.pem', '-out', 'r.csr', '-subj', '/CN=Apple Push Services: a.b']);
  run(['ca', '-batch', '-config', 'ca.cnf', '-selfsign', '-keyfile', 'k.pem', '-in', 'r.csr', '-out', 'c.pem', '-startdate', '20200101000000Z', '-enddate', '20210101000000Z']);
  return dir;
}
const TEAM_ID = 'TEAM123456';

describe('App controller (real kube-apiserver, kubectl)', function () {
  this.timeout(120_000);
  let controller: RunningController;
  // After hooks run in the order they are declared: the controller stops before its servers go.
  after(async () => {
    await controller?.stop();
  });
  const env = useTestEnv();
  const api = useTestApi(env);
  const kube = useControlPlane();

  before(async () => {
    controller = await startTestController(env, kube.cp.kubeconfig);
  });

  const secret = (name: string, stringData: Record<string, string>) => manifest('Secret', name, { type: 'Opaque', stringData });
  const app = (name: string, spec: Record<string, unknown>) => manifest('App', name, { spec });
  const getApp = (name: string) => kube.getJson('app', name);
  const ready = (name: string, type = 'Ready', status = 'True') =>
    waitFor(`${name} ${type}=${status}`, async () => {
      const obj = await getApp(name);
      const c = condition(obj, type);
      return c?.status === status && c.observedGeneration === obj.metadata.generation ? obj : undefined;
    });
  const keyFromSecret = async (appObj: any, keyName: string): Promise<{ key: string; secret: any }> => {
    const entry = appObj.status.keys.find((k: any) => k.name === keyName);
    const s = await kube.getJson('secret', entry.secretName);
    return { key: Buffer.from(s.data.apiKey, 'base64').toString(), secret: s };
  };
  const send = (key: string, appId: string, extra: Record<string, unknown> = {}, ip = '127.0.0.1') =>
    api.request('POST', '/api/v1/notifications', {
      key,
      headers: { 'x-forwarded-for': ip },
      body: { app_id: appId, contents: { en: 'Hello' }, include_external_ids: ['nobody'], ...extra },
    });

  it('apply a Secret and an App → Ready=True, app id in status, a key Secret that authenticates a REST call', async () => {
    await kube.apply(secret('demo-apns', { 'key.p8': makeP8() }));
    await kube.apply(app('demo', {
      bundleId: 'dev.herald.demo',
      credentials: { type: 'token', secretRef: { name: 'demo-apns' }, keyId: KEY_ID, teamId: TEAM_ID },
      apiKeys: [{ name: 'backend' }],
      segments: [{ name: 'Power users', conditions: [{ key: 'level', relation: '>', value: '10' }] }],
    }));
    const obj = await ready('demo');
    expect(obj.status.appId).to.match(/^[0-9a-f-]{36}$/);
    expect(obj.status.observedGeneration).to.equal(obj.metadata.generation);
    expect(condition(obj, 'CredentialsReady')).to.include({ status: 'True', reason: 'CredentialsValid' });
    expect(condition(obj, 'DeliveryPaused')).to.include({ status: 'False' });
    expect(obj.metadata.finalizers).to.include('herald.dev/disable-app');
    expect(ok(await kube.kubectl(['get', 'apps', 'demo', '--no-headers']))).to.match(/^demo\s+dev\.herald\.demo\s+True\s/);

    const { key, secret: keySecret } = await keyFromSecret(obj, 'backend');
    expect(key).to.match(/^hk_/);
    // Owned by the App (no garbage collector runs here, so the reference itself is what we check).
    expect(keySecret.metadata.ownerReferences).to.deep.equal([
      { apiVersion: 'herald.dev/v1alpha1', kind: 'App', name: 'demo', uid: obj.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    // Only the hash is stored.
    const stored = await env.pool.query('SELECT hash FROM api_keys WHERE app_id = $1', [obj.status.appId]);
    expect(stored.rows).to.have.length(1);
    expect(stored.rows[0].hash.toString('utf8')).to.not.contain(key);

    const res = await send(key, obj.status.appId);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.status).to.equal('sending');

    // The custom segment from the spec is a valid audience.
    await addDevices(env.pool, obj.status.appId, [{ tags: { level: '20' } }, { tags: { level: '5' } }]);
    const seg = await send(key, obj.status.appId, { include_external_ids: undefined, included_segments: ['Power users'] });
    expect(seg.status, JSON.stringify(seg.body)).to.equal(202);
    expect(seg.body.estimate).to.equal(1);
  });

  it('issues a key once: reconciling again (resync, restarts) never makes a second one', async () => {
    const obj = await getApp('demo');
    // A spec change that touches no key (a new generation), then wait until it was reconciled.
    const before = obj.metadata.generation;
    ok(await kube.kubectl(['patch', 'app', 'demo', '--type=merge', '-p', '{"spec":{"billing":{"invoiceOverdue":false}}}']));
    await waitFor('the new generation reconciled', async () => {
      const o = await getApp('demo');
      return o.metadata.generation > before && o.status.observedGeneration === o.metadata.generation ? o : undefined;
    });
    const keys = await listKeys(env.pool, obj.status.appId);
    expect(keys.filter((k) => k.name === 'backend')).to.have.length(1);
    const secrets = ok(await kube.kubectl(['get', 'secrets', '-l', 'herald.dev/app=demo', '-o', 'name']));
    expect(secrets.trim().split('\n')).to.have.length(1);
  });

  it('a broken .p8 → CredentialsReady=False with a clear reason, a Warning event, and sends become drafts', async () => {
    await kube.apply(secret('broken-apns', { 'key.p8': '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n' }));
    await kube.apply(app('broken', {
      bundleId: 'dev.herald.broken',
      credentials: { type: 'token', secretRef: { name: 'broken-apns' }, keyId: KEY_ID, teamId: TEAM_ID },
      apiKeys: [{ name: 'backend' }],
    }));
    const obj = await ready('broken', 'CredentialsReady', 'False');
    const c = condition(obj, 'CredentialsReady')!;
    expect(c.reason).to.equal('KeyUnreadable');
    expect(c.message).to.equal('Key.p8 in Secret broken-apns is not a PEM private key. Sends of this app are saved as drafts and not delivered.');
    expect(condition(obj, 'Ready')).to.include({ status: 'False', reason: 'CredentialsNotReady' });
    const described = await waitFor('the Warning event', async () => {
      const out = ok(await kube.kubectl(['describe', 'app', 'broken']));
      return out.includes('KeyUnreadable') ? out : undefined;
    });
    expect(described).to.match(/Warning\s+KeyUnreadable/);

    const { key } = await keyFromSecret(await ready('broken', 'Ready', 'False'), 'backend');
    const res = await send(key, obj.status.appId);
    expect(res.body.status).to.equal('draft');

    // Fixing the Secret fixes the app: the Secret informer triggers the App.
    await kube.apply(secret('broken-apns', { 'key.p8': makeP8() }));
    await ready('broken');
  });

  it('names the problem for a missing Secret, a wrong key type and an expired certificate', async () => {
    await kube.apply(app('nosecret', { bundleId: 'a.b', credentials: { type: 'token', secretRef: { name: 'absent' }, keyId: KEY_ID, teamId: TEAM_ID } }));
    expect(condition(await ready('nosecret', 'CredentialsReady', 'False'), 'CredentialsReady')).to.include({ reason: 'SecretMissing' });

    const rsa = execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
    await kube.apply(secret('rsa-apns', { 'key.p8': rsa }));
    await kube.apply(app('rsa', { bundleId: 'a.b', credentials: { type: 'token', secretRef: { name: 'rsa-apns' }, keyId: KEY_ID, teamId: TEAM_ID } }));
    expect(condition(await ready('rsa', 'CredentialsReady', 'False'), 'CredentialsReady')).to.include({ reason: 'KeyWrongType' });

    const dir = expiredCertificate();
    await kube.apply(secret('old-cert', { 'tls.crt': readFileSync(join(dir, 'c.pem'), 'utf8'), 'tls.key': readFileSync(join(dir, 'k.pem'), 'utf8') }));
    await kube.apply(app('oldcert', { bundleId: 'a.b', credentials: { type: 'certificate', secretRef: { name: 'old-cert' } } }));
    const c = condition(await ready('oldcert', 'CredentialsReady', 'False'), 'CredentialsReady')!;
    expect(c.reason).to.equal('CertificateExpired');
    expect(c.message).to.contain('expired on 2021-01-01');
  });

  it('reads a .p12 certificate with its passphrase and reports its expiry; a wrong passphrase is named', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-p12-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'),
      '-subj', '/CN=Apple Push Services: a.b', '-days', '200'], { stdio: 'ignore' });
    execFileSync('openssl', ['pkcs12', '-export', '-in', join(dir, 'c.pem'), '-inkey', join(dir, 'k.pem'), '-out', join(dir, 'c.p12'), '-passout', 'pass:s3cret'], { stdio: 'ignore' });
    const p12 = readFileSync(join(dir, 'c.p12')).toString('base64');
    await kube.apply(manifest('Secret', 'p12-apns', { type: 'Opaque', data: { 'cert.p12': p12, passphrase: Buffer.from('s3cret').toString('base64') } }));
    await kube.apply(app('p12', { bundleId: 'a.b', credentials: { type: 'certificate', secretRef: { name: 'p12-apns' } } }));
    const good = condition(await ready('p12', 'CredentialsReady', 'True'), 'CredentialsReady')!;
    expect(good.message).to.match(/certificate is readable; it expires on \d{4}-/);

    await kube.apply(manifest('Secret', 'p12-apns', { type: 'Opaque', data: { 'cert.p12': p12, passphrase: Buffer.from('wrong').toString('base64') } }));
    const bad = condition(await ready('p12', 'CredentialsReady', 'False'), 'CredentialsReady')!;
    expect(bad.reason).to.equal('CertificatePassphraseWrong');
  });

  it('applies IP allow-lists, and a key revoked or removed in the spec stops working (the key cache of the api keeps an entry 2 s)', async () => {
    await kube.apply(app('keys', {
      bundleId: 'dev.herald.keys',
      apiKeys: [{ name: 'office', allowIPs: ['10.1.2.3', '192.168.0.0/16'] }, { name: 'ci' }, { name: 'old' }],
    }));
    const obj = await waitFor('three keys', async () => {
      const o = await getApp('keys');
      return o.status?.keys?.length === 3 ? o : undefined;
    });
    const appId = obj.status.appId;
    const office = (await keyFromSecret(obj, 'office')).key;
    const ci = (await keyFromSecret(obj, 'ci')).key;
    const old = (await keyFromSecret(obj, 'old')).key;
    expect((await send(office, appId, {}, '10.1.2.3')).status).to.equal(200);
    expect((await send(office, appId, {}, '192.168.44.5')).status).to.equal(200);
    expect((await send(office, appId, {}, '10.9.9.9')).status).to.equal(403);

    // A key made outside the App (herald keys create, the dashboard's Settings) is not the spec's:
    // it stays, whatever its name, as an API segment stays beside the App's.
    const own = (await createKey(env.pool, appId, { name: 'old', source: 'dashboard' })).key;
    // Narrow the allow-list, revoke ci, drop old.
    await kube.apply(app('keys', { bundleId: 'dev.herald.keys', apiKeys: [{ name: 'office', allowIPs: ['10.9.9.9'] }, { name: 'ci', revoked: true }] }));
    await waitFor('revocations to take effect', async () =>
      (await send(ci, appId)).status === 401 && (await send(old, appId)).status === 401 && (await send(office, appId, {}, '10.1.2.3')).status === 403,
    30_000, 100);
    expect((await send(office, appId, {}, '10.9.9.9')).status).to.equal(200);
    expect((await send(own, appId)).status).to.equal(200);
    expect((await listKeys(env.pool, appId)).filter((k) => !k.revokedAt).map((k) => [k.name, k.source])).to.deep.equal([['office', 'app_resource'], ['old', 'dashboard']]);
    const after = await waitFor('status of the revoked key', async () => {
      const o = await getApp('keys');
      return o.status.keys.find((k: any) => k.name === 'ci')?.revokedAt ? o : undefined;
    });
    expect(after.status.keys.map((k: any) => k.name)).to.deep.equal(['office', 'ci']);
  });

  it('invoiceOverdue pauses the app (402, DeliveryPaused) and false lifts it for new sends', async () => {
    const obj = await getApp('demo');
    const { key } = await keyFromSecret(obj, 'backend');
    ok(await kube.kubectl(['patch', 'app', 'demo', '--type=merge', '-p', '{"spec":{"billing":{"invoiceOverdue":true}}}']));
    const paused = await ready('demo', 'DeliveryPaused', 'True');
    expect(condition(paused, 'DeliveryPaused')!.reason).to.equal('InvoiceOverdue');
    expect(condition(paused, 'Ready')).to.include({ status: 'False', reason: 'DeliveryPaused' });
    const refused = await send(key, obj.status.appId);
    expect(refused.status).to.equal(402);
    expect(refused.body.errors[0]).to.equal('Delivery is paused until the invoice for this app is paid.');

    ok(await kube.kubectl(['patch', 'app', 'demo', '--type=merge', '-p', '{"spec":{"billing":{"invoiceOverdue":false}}}']));
    await ready('demo');
    expect((await send(key, obj.status.appId)).status).to.equal(200);
    const events = ok(await kube.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=demo', '-o', 'custom-columns=REASON:.reason', '--no-headers']));
    expect(events).to.contain('DeliveryPaused').and.to.contain('DeliveryResumed');
  });

  it('keeps reconciling after the apiserver restarts (informers come back with back-off)', async function () {
    this.timeout(180_000);
    const before = controller.apps.informers.apps.restarts;
    await kube.cp.restartApiserver();
    ok(await kube.kubectl(['patch', 'app', 'demo', '--type=merge', '-p', '{"spec":{"billing":{"invoiceOverdue":true}}}']));
    await ready('demo', 'DeliveryPaused', 'True');
    const row = await getAppByName(env.pool, 'default/demo');
    expect(row!.invoiceOverdue).to.equal(true);
    expect(controller.apps.informers.apps.restarts).to.be.greaterThan(before);
    // A Secret change still reaches its App: the Secret informer came back too.
    await kube.apply(secret('nosecret-now', { 'key.p8': makeP8() }));
    await kube.apply(app('nosecret', { bundleId: 'a.b', credentials: { type: 'token', secretRef: { name: 'absent' }, keyId: KEY_ID, teamId: TEAM_ID } }));
    await kube.apply(secret('absent', { 'key.p8': makeP8() }));
    await ready('nosecret', 'CredentialsReady', 'True');
    ok(await kube.kubectl(['patch', 'app', 'demo', '--type=merge', '-p', '{"spec":{"billing":{"invoiceOverdue":false}}}']));
  });

  it('deleting an App disables it: keys revoked, history kept, finalizer removed', async () => {
    const obj = await getApp('keys');
    const appId = obj.status.appId;
    const office = (await keyFromSecret(obj, 'office')).key;
    const sendsBefore = (await env.pool.query('SELECT count(*)::int AS n FROM sends WHERE app_id = $1', [appId])).rows[0].n;
    ok(await kube.kubectl(['delete', 'app', 'keys', '--wait=true', '--timeout=30s']));
    expect((await kube.kubectl(['get', 'app', 'keys'])).code).to.not.equal(0);
    const row = await getAppByName(env.pool, 'default/keys');
    expect(row!.disabled).to.equal(true);
    expect((await listKeys(env.pool, appId)).every((k) => k.revokedAt)).to.equal(true);
    expect((await env.pool.query('SELECT count(*)::int AS n FROM sends WHERE app_id = $1', [appId])).rows[0].n).to.equal(sendsBefore);
    await waitFor('the key to stop working', async () => (await send(office, appId, {}, '10.9.9.9')).status === 401, 30_000, 100);
  });
});
