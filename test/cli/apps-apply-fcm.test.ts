// Firebase credentials in an apps file (issue 39): `herald apps apply -f` reads spec.fcm and its
// Secret's service-account.json as the controller does, seals the account, keeps why it is not
// usable (apps.fcm_reason / fcm_problem) and says so on its line; an FCM-only App sends (the
// API accepts its send, no draft); removing spec.fcm removes the credentials; `herald apps list` names both kinds.
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useTestEnv } from '../env/index.js';
import { addDevices, makeP8 } from '../support/apps.js';
import { useTestApi } from '../support/api-server.js';
import { createKey } from '../../core/apps/keys.js';
import { herald } from '../support/cli.js';
import { getAppByName } from '../../core/apps/app-store.js';
import { getFcmCredentials } from '../../core/fcm/credentials-store.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const account = (over: Record<string, unknown> = {}) => JSON.stringify({
  type: 'service_account', project_id: 'shop-android', private_key_id: 'k1', private_key: rsa,
  client_email: 'push@shop-android.iam.gserviceaccount.com', token_uri: 'http://127.0.0.1:4001/token', ...over,
});
const indent = (text: string) => text.split('\n').map((l) => `    ${l}`).join('\n');
const app = (name: string, spec: string) => `apiVersion: herald.dev/v1alpha1
kind: App
metadata: {name: ${name}}
spec:
  bundleId: com.example.${name}
${spec}`;
const secret = (name: string, entries: Record<string, string>) => `apiVersion: v1
kind: Secret
metadata: {name: ${name}}
stringData:
${Object.entries(entries).map(([k, v]) => `  ${k}: |\n${indent(v)}`).join('\n')}
`;

describe('herald apps apply: spec.fcm (Firebase credentials)', function () {
  this.timeout(60_000);
  const env = useTestEnv({ bus: false, redis: false });
  const api = useTestApi(env, () => ({ bus: { publish: async () => undefined, ping: async () => undefined } as never }));
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'herald-fcm-'));
  });

  async function apply(...docs: string[]) {
    const file = join(dir, `apps-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(file, docs.join('---\n'));
    return herald(['apps', 'apply', '-f', file], env.childEnv());
  }

  it('stores an FCM-only App\'s account (readable back), no draft; removing spec.fcm removes it and its sends become drafts', async () => {
    const res = await apply(app('droid', '  fcm: {secretRef: {name: droid-fcm}}\n'), secret('droid-fcm', { 'service-account.json': account() }));
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.match(/^droid\t[0-9a-f-]{36}\n$/); // nothing to say: it sends
    const droid = (await getAppByName(env.pool, 'droid'))!;
    expect(droid).to.include({ hasCredentials: true, hasFcmCredentials: true, hasApnsCredentials: false });
    expect(await getFcmCredentials(env.pool, droid.id)).to.deep.equal({
      projectId: 'shop-android', clientEmail: 'push@shop-android.iam.gserviceaccount.com', tokenUri: 'http://127.0.0.1:4001/token', privateKey: rsa,
    });
    const list = await herald(['apps', 'list'], env.childEnv());
    expect(list.stdout).to.match(new RegExp(`^droid\\t${droid.id}\\tproduction\\tfcm\\tok$`, 'm'));
    // A send is accepted for delivery, not saved as a draft (the contract's draft needs neither credential).
    const [device] = await addDevices(env.pool, droid.id, [{}]);
    await env.pool.query(`UPDATE subscriptions SET platform = 'android' WHERE id = $1`, [device]);
    const { key } = await createKey(env.pool, droid.id, { name: 'backend' });
    const send = () => api.request('POST', '/api/v1/notifications', { key, body: { app_id: droid.id, contents: { en: 'Hi' }, included_segments: ['Subscribed Users'] } });
    const accepted = await send();
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(202);
    expect(accepted.body).to.include({ status: 'queued', estimate: 1 });

    const removed = await apply(app('droid', ''));
    expect(removed.stdout).to.equal(`droid\t${droid.id}  (sends are drafts: no credentials are configured)\n`);
    expect(await getFcmCredentials(env.pool, droid.id)).to.equal(undefined);
    expect(await getAppByName(env.pool, 'droid')).to.include({ hasCredentials: false, hasFcmCredentials: false });
    expect((await send()).body.status).to.equal('draft');
  });

  it('an App with both: a broken service account is named on its line and kept for the dashboard; APNs still sends', async () => {
    const both = app('both', '  credentials: {type: token, secretRef: {name: both-apns}, keyId: ABCDE12345, teamId: TEAM123456}\n  fcm: {secretRef: {name: both-fcm}}\n');
    const apns = secret('both-apns', { 'key.p8': makeP8() });
    const res = await apply(both, apns, secret('both-fcm', { 'service-account.json': account({ token_uri: 'http://oauth2.googleapis.com/token' }) }));
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.match(/^both\t[0-9a-f-]{36}  \(Firebase credentials not usable, Android devices are skipped: token_uri in service-account\.json of Secret both-fcm must be https \(http is accepted for this machine only: localhost, 127\.0\.0\.1, ::1\)\)\n$/);
    const app1 = (await getAppByName(env.pool, 'both'))!;
    expect(app1).to.include({ hasCredentials: true, hasApnsCredentials: true, hasFcmCredentials: false });
    expect((await env.pool.query('SELECT fcm_reason FROM apps WHERE id = $1', [app1.id])).rows[0].fcm_reason).to.equal('FcmTokenUriInvalid');

    const fixed = await apply(both, apns, secret('both-fcm', { 'service-account.json': account() }));
    expect(fixed.stdout).to.equal(`both\t${app1.id}\n`);
    expect((await env.pool.query('SELECT fcm_reason, fcm_problem FROM apps WHERE id = $1', [app1.id])).rows[0]).to.deep.equal({ fcm_reason: null, fcm_problem: null });
    const list = await herald(['apps', 'list'], env.childEnv());
    expect(list.stdout).to.match(new RegExp(`^both\\t${app1.id}\\tproduction\\tapns\\+fcm\\tok$`, 'm'));
  });

  it('names a missing Secret and a missing entry; an FCM-only App with a broken account is a draft', async () => {
    const missing = await apply(app('lost', '  fcm: {secretRef: {name: nowhere}}\n'));
    expect(missing.stdout).to.contain('(sends are drafts: no credentials are configured)  (Firebase credentials not usable, Android devices are skipped: Secret nowhere was not found)');
    const wrongKey = await apply(app('wrongkey', '  fcm: {secretRef: {name: wk}}\n'), secret('wk', { 'google-services.json': account() }));
    expect(wrongKey.stdout).to.contain('Secret wk has no service-account.json entry');
    expect(await getAppByName(env.pool, 'wrongkey')).to.include({ hasCredentials: false });
  });

  it('refuses spec.fcm without secretRef.name, naming it, and stores nothing', async () => {
    const res = await apply(app('typo', '  fcm: {secret: droid-fcm}\n'));
    expect(res.code).to.not.equal(0);
    expect(res.stderr).to.contain('App typo spec.fcm needs secretRef.name, the Secret holding service-account.json');
    expect(await getAppByName(env.pool, 'typo')).to.equal(undefined);
  });
});
