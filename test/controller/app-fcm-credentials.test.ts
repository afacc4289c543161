// The App's Firebase credentials (spec.fcm, issue 39) on a real kube-apiserver: the controller
// checks the Secret's service-account.json, seals it in PostgreSQL and says so in
// FcmCredentialsReady (and the FCM printer column); a broken file is a reason, a Warning event
// and no stored credentials; removing spec.fcm removes them. An FCM-only App is Ready (it sends).
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { useTestEnv } from '../env/index.js';
import { makeP8 } from '../support/apps.js';
import { getFcmCredentials } from '../../core/fcm/credentials-store.js';
import { getApp } from '../../core/apps/app-store.js';
import { condition, manifest, ok, startTestController, useControlPlane, waitFor } from './harness.js';
import type { RunningController } from '../../controller/index.js';

const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const account = (over: Record<string, unknown> = {}) => JSON.stringify({
  type: 'service_account', project_id: 'herald-demo', private_key_id: 'k1', private_key: rsa(),
  client_email: 'push@herald-demo.iam.gserviceaccount.com', token_uri: 'https://oauth2.googleapis.com/token', ...over,
});

describe('App controller: FcmCredentialsReady (real kube-apiserver)', function () {
  this.timeout(120_000);
  let controller: RunningController;
  after(async () => {
    await controller?.stop();
  });
  const env = useTestEnv();
  const kube = useControlPlane();

  before(async () => {
    controller = await startTestController(env, kube.cp.kubeconfig);
  });

  const secret = (name: string, json: string) => manifest('Secret', name, { type: 'Opaque', stringData: { 'service-account.json': json } });
  const app = (name: string, spec: Record<string, unknown>) => manifest('App', name, { spec: { bundleId: `dev.herald.${name}`, ...spec } });
  /** The App once its current generation is reconciled and `type` has `status`. */
  const reconciled = (name: string, type: string, status: string) =>
    waitFor(`${name} ${type}=${status}`, async () => {
      const obj = await kube.getJson('app', name);
      return obj.status?.observedGeneration === obj.metadata.generation && condition(obj, type)?.status === status ? obj : undefined;
    });
  const warnings = (name: string, reason: string) =>
    waitFor(`the Warning event ${reason}`, async () => {
      const out = ok(await kube.kubectl(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'custom-columns=TYPE:.type,REASON:.reason', '--no-headers']));
      return new RegExp(`Warning\\s+${reason}`).test(out) ? out : undefined;
    });

  it('an FCM-only App: FcmCredentialsReady=True, the account stored in PostgreSQL, Ready (it can send), the FCM column; removing spec.fcm removes it', async () => {
    await kube.apply(secret('droid-fcm', account()));
    await kube.apply(app('droid', { fcm: { secretRef: { name: 'droid-fcm' } } }));
    const obj = await reconciled('droid', 'FcmCredentialsReady', 'True');
    const c = condition(obj, 'FcmCredentialsReady')!;
    expect(c).to.include({ reason: 'CredentialsValid', observedGeneration: obj.metadata.generation });
    expect(c.message).to.equal('Service account push@herald-demo.iam.gserviceaccount.com of Firebase project herald-demo has a readable RSA key.');
    // No APNs credentials is a choice here, not a problem: no Warning, and the App is Ready.
    expect(condition(obj, 'CredentialsReady')).to.include({ status: 'False', reason: 'NotConfigured' });
    expect(condition(obj, 'Ready')).to.include({ status: 'True' });
    const stored = await getFcmCredentials(env.pool, obj.status.appId);
    expect(stored).to.include({ projectId: 'herald-demo', clientEmail: 'push@herald-demo.iam.gserviceaccount.com', tokenUri: 'https://oauth2.googleapis.com/token' });
    expect(stored!.privateKey).to.contain('BEGIN PRIVATE KEY');
    expect(await getApp(env.pool, obj.status.appId)).to.include({ hasCredentials: true, hasFcmCredentials: true, hasApnsCredentials: false });
    const row = ok(await kube.kubectl(['get', 'app', 'droid', '--no-headers', '-o', 'custom-columns=FCM:.status.conditions[?(@.type=="FcmCredentialsReady")].reason']));
    expect(row.trim()).to.equal('CredentialsValid');
    const table = ok(await kube.kubectl(['get', 'app', 'droid']));
    expect(table.split('\n')[0]).to.match(/\bFCM\b/);
    expect(table.split('\n')[1]).to.contain('CredentialsValid');
    const events = ok(await kube.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=droid', '-o', 'custom-columns=TYPE:.type,REASON:.reason', '--no-headers']));
    expect(events).not.to.match(/Warning/);

    await kube.apply(app('droid', {}));
    const none = await reconciled('droid', 'FcmCredentialsReady', 'False');
    expect(condition(none, 'FcmCredentialsReady')).to.include({ reason: 'NotConfigured' });
    expect(condition(none, 'CredentialsReady')).to.include({ status: 'False', reason: 'NoCredentials' });
    expect(condition(none, 'Ready')).to.include({ status: 'False', reason: 'CredentialsNotReady' });
    expect(await getFcmCredentials(env.pool, obj.status.appId)).to.equal(undefined);
    expect(await getApp(env.pool, obj.status.appId)).to.include({ hasCredentials: false });
  });

  it('a broken service account: the reason, a Warning event, nothing stored, the reason kept for the dashboard; fixing the Secret fixes it', async () => {
    await kube.apply(manifest('Secret', 'both-apns', { type: 'Opaque', stringData: { 'key.p8': makeP8() } }));
    await kube.apply(secret('both-fcm', account({ private_key: makeP8() })));
    await kube.apply(app('both', {
      credentials: { type: 'token', secretRef: { name: 'both-apns' }, keyId: 'ABC123DEFG', teamId: 'TEAM123456' },
      fcm: { secretRef: { name: 'both-fcm' } },
    }));
    const obj = await reconciled('both', 'FcmCredentialsReady', 'False');
    const c = condition(obj, 'FcmCredentialsReady')!;
    expect(c.reason).to.equal('FcmKeyWrongType');
    expect(c.message).to.equal("Private_key in service-account.json of Secret both-fcm must be an RSA key as Google issues it (the access token's JWT is signed RS256). The app's Android devices are skipped.");
    // APNs still works: the App sends to its iOS devices.
    expect(condition(obj, 'CredentialsReady')).to.include({ status: 'True' });
    expect(condition(obj, 'Ready')).to.include({ status: 'True' });
    await warnings('both', 'FcmKeyWrongType');
    expect(await getFcmCredentials(env.pool, obj.status.appId)).to.equal(undefined);
    const kept = await env.pool.query('SELECT fcm_reason, fcm_problem FROM apps WHERE id = $1', [obj.status.appId]);
    expect(kept.rows[0]).to.deep.include({ fcm_reason: 'FcmKeyWrongType' });

    // The Secret informer brings the App back when its Secret changes.
    await kube.apply(secret('both-fcm', account()));
    await waitFor('both FcmCredentialsReady=True', async () => condition(await kube.getJson('app', 'both'), 'FcmCredentialsReady')?.status === 'True');
    expect((await env.pool.query('SELECT fcm_reason, fcm_problem FROM apps WHERE id = $1', [obj.status.appId])).rows[0]).to.deep.equal({ fcm_reason: null, fcm_problem: null });
    expect(await getApp(env.pool, obj.status.appId)).to.include({ hasApnsCredentials: true, hasFcmCredentials: true });
  });

  it('names a missing Secret, a missing entry and a plain-http token_uri (the Event says Firebase)', async () => {
    await kube.apply(app('nofcm', { fcm: { secretRef: { name: 'absent' } } }));
    expect(condition(await reconciled('nofcm', 'FcmCredentialsReady', 'False'), 'FcmCredentialsReady')).to.include({ reason: 'SecretMissing' });
    await warnings('nofcm', 'FcmSecretMissing');

    await kube.apply(manifest('Secret', 'wrong-key', { type: 'Opaque', stringData: { 'credentials.json': account() } }));
    await kube.apply(app('wrongkey', { fcm: { secretRef: { name: 'wrong-key' } } }));
    const wrong = await reconciled('wrongkey', 'FcmCredentialsReady', 'False');
    expect(condition(wrong, 'FcmCredentialsReady')).to.include({ reason: 'FcmKeyMissing' });
    expect(condition(wrong, 'Ready')).to.include({ status: 'False', reason: 'CredentialsNotReady' });
    expect(condition(wrong, 'Ready')!.message).to.contain('FcmCredentialsReady');

    await kube.apply(secret('http-fcm', account({ token_uri: 'http://oauth2.googleapis.com/token' })));
    await kube.apply(app('httpfcm', { fcm: { secretRef: { name: 'http-fcm' } } }));
    expect(condition(await reconciled('httpfcm', 'FcmCredentialsReady', 'False'), 'FcmCredentialsReady')).to.include({ reason: 'FcmTokenUriInvalid' });
  });

  it('the CRD refuses spec.fcm without secretRef.name', async () => {
    const res = await kube.kubectl(['apply', '-f', '-'], app('badspec', { fcm: { secretRef: {} } }));
    expect(res.code).to.not.equal(0);
    expect(res.stderr).to.match(/spec\.fcm\.secretRef\.name: Required value/);
  });
});
