// The admin commands without a cluster, run as a person runs them: `herald apps apply -f`,
// `herald keys create|revoke|list`, `herald import`.
import { expect } from 'chai';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useTestEnv } from '../env/index.js';
import { makeP8 } from '../support/apps.js';
import { useTestApi } from '../support/api-server.js';
import { herald } from '../support/cli.js';

describe('cli: apps, keys and import', function () {
  this.timeout(60_000);
  const env = useTestEnv({ bus: false, redis: false });
  const api = useTestApi(env, () => ({ bus: { publish: async () => undefined, ping: async () => undefined } as never }));
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'herald-cli-'));
    const p8 = makeP8();
    await writeFile(
      join(dir, 'apps.yaml'),
      `apiVersion: herald.dev/v1alpha1
kind: App
metadata: {name: shop}
spec:
  appId: 5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11
  bundleId: com.example.shop
  credentials: {type: token, secretRef: {name: shop-apns}, keyId: ABCDE12345, teamId: TEAM123456}
  segments:
    - name: Gold
      conditions: [{key: plan, relation: "=", value: gold}]
---
apiVersion: v1
kind: Secret
metadata: {name: shop-apns}
stringData:
  key.p8: |
${p8.split('\n').map((l) => '    ' + l).join('\n')}
---
apiVersion: herald.dev/v1alpha1
kind: App
metadata: {name: broken}
spec:
  bundleId: com.example.broken
  credentials: {type: token, secretRef: {name: broken-apns}, keyId: ABCDE12345, teamId: TEAM123456}
---
apiVersion: v1
kind: Secret
metadata: {name: broken-apns}
stringData: {key.p8: "not a key"}
`,
    );
  });

  it('applies App manifests and prints each name and app id, keeping a given app id', async () => {
    const res = await herald(['apps', 'apply', '-f', join(dir, 'apps.yaml')], env.childEnv());
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.contain('shop\t5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11\n');
    expect(res.stdout).to.match(/broken\t[0-9a-f-]{36}\s+\(sends are drafts: key\.p8 in Secret broken-apns is not a PEM private key\)/);
    const again = await herald(['apps', 'apply', '-f', join(dir, 'apps.yaml')], env.childEnv());
    expect(again.stdout).to.equal(res.stdout);
    const creds = (await env.pool.query("SELECT kind, key_id, team_id FROM app_credentials c JOIN apps a ON a.id = c.app_id WHERE a.name = 'shop'")).rows;
    expect(creds).to.deep.equal([{ kind: 'token', key_id: 'ABCDE12345', team_id: 'TEAM123456' }]);
  });

  it('creates a key printed alone on stdout, which authenticates; lists and revokes it', async () => {
    const created = await herald(['keys', 'create', '--app', 'shop', '--allow-ip', '127.0.0.0/8'], env.childEnv());
    expect(created.code, created.stderr).to.equal(0);
    const key = created.stdout.trim();
    expect(key).to.match(/^hk_[0-9A-Za-z]{40}$/);
    const send = () => api.request('GET', '/api/v1/notifications/1', { key, headers: { 'x-forwarded-for': '127.0.0.1' } });
    expect((await send()).status).to.equal(404); // authenticated: the send just does not exist

    const list = await herald(['keys', 'list', '--app', 'shop'], env.childEnv());
    expect(list.stdout).to.match(/^ID\tNAME\tSCOPE\tALLOW_IPS\tCREATED\tREVOKED\tLAST_USED\tSOURCE\n/);
    expect(list.stdout.split('\n')[1].split('\t').slice(-1)).to.deep.equal(['cli']);
    expect(list.stdout).to.contain('127.0.0.0/8');
    expect(list.stdout).not.to.contain(key);
    const keyId = list.stdout.split('\n')[1].split('\t')[0];

    const revoked = await herald(['keys', 'revoke', '--app', 'shop', keyId], env.childEnv());
    expect(revoked.code).to.equal(0);
    expect((await herald(['keys', 'list', '--app', 'shop'], env.childEnv())).stdout.split('\n')[1].split('\t')[5]).to.match(/^\d{4}-/); // REVOKED
    expect((await herald(['keys', 'revoke', '--app', 'shop', keyId], env.childEnv())).code).to.equal(1);
  });

  it('creates a read-only key with --scope read: it reads but may not send; an unknown scope is refused', async () => {
    const created = await herald(['keys', 'create', '--app', 'shop', '--name', 'viewer', '--scope', 'read'], env.childEnv());
    expect(created.code, created.stderr).to.equal(0);
    expect(created.stderr).to.contain('(scope read)');
    const key = created.stdout.trim();
    expect((await api.request('GET', '/api/v1/notifications/1', { key })).status).to.equal(404);
    const sent = await api.request('POST', '/api/v1/notifications', { key, body: { contents: { en: 'x' }, included_segments: ['All'] } });
    expect(sent.status).to.equal(403);
    expect((await herald(['keys', 'list', '--app', 'shop'], env.childEnv())).stdout).to.match(/	viewer	read	\*	/);
    const bad = await herald(['keys', 'create', '--app', 'shop', '--scope', 'owner'], env.childEnv());
    expect(bad.code).to.equal(2); // a usage error
    expect(bad.stderr).to.contain('--scope is read (stats, the list and the dashboard, read only), send (');
  });

  it('creates an admin key with --scope admin: it may send as a send key may; keys create --help names each scope', async () => {
    const created = await herald(['keys', 'create', '--app', 'shop', '--name', 'owner', '--scope', 'admin'], env.childEnv());
    expect(created.code, created.stderr).to.equal(0);
    expect(created.stderr).to.contain('(scope admin)');
    const sent = await api.request('POST', '/api/v1/notifications', { key: created.stdout.trim(), body: { contents: { en: 'x' }, included_segments: ['All'] } });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(422); // past the scope check: the body's own rule (no app_id)
    expect((await herald(['keys', 'list', '--app', 'shop'], env.childEnv())).stdout).to.match(/\towner\tadmin\t\*\t/);
    const help = (await herald(['keys', 'create', '--help'], env.childEnv())).stdout;
    expect(help).to.contain('[--scope read|send|admin]').and.match(/^  admin  what send may, and creating and revoking the app's keys in the dashboard$/m);
  });

  it('says clearly when the app is unknown or an argument is wrong', async () => {
    const res = await herald(['keys', 'create', '--app', 'nope'], env.childEnv());
    expect(res.code).to.equal(1);
    expect(res.stderr).to.contain('no app named nope');
    const bad = await herald(['keys', 'create', '--app', 'shop', '--allow-ip', 'everywhere'], env.childEnv());
    expect(bad.stderr).to.contain('--allow-ip: "everywhere" is not an address or a range such as 10.0.0.0/8');
    expect((await herald(['frobnicate'], env.childEnv())).code).to.equal(2);
  });

  it('imports NDJSON with a progress line, rejecting bad lines by number, updating on re-import', async () => {
    const lines = Array.from({ length: 250_001 }, (_, i) =>
      JSON.stringify({ token: i.toString(16).padStart(64, '0'), language: i % 2 ? 'en' : 'fr', tags: { plan: i % 10 ? 'free' : 'gold' } }),
    );
    lines.splice(5, 0, '{"token": "zz"}', 'not json');
    await writeFile(join(dir, 'devices.ndjson'), lines.join('\n') + '\n');
    const res = await herald(['import', '--app', 'shop', join(dir, 'devices.ndjson')], env.childEnv());
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stderr).to.match(/imported 200,000 rows, 2 rejected/);
    expect(res.stderr).to.contain('line 6: token must be the APNs device token in hex');
    expect(res.stderr).to.contain('line 7: not JSON');
    expect(res.stdout).to.match(/imported 250001 subscriptions into shop \(2 lines rejected\)/);
    const count = async () => (await env.pool.query("SELECT count(*)::int AS n FROM subscriptions s JOIN apps a ON a.id = s.app_id WHERE a.name = 'shop'")).rows[0].n;
    expect(await count()).to.equal(250_001);

    await writeFile(join(dir, 'again.ndjson'), JSON.stringify({ token: '0'.repeat(64), language: 'de', subscribed: false }) + '\n');
    await herald(['import', '--app', 'shop', join(dir, 'again.ndjson')], env.childEnv());
    expect(await count()).to.equal(250_001);
    const row = (await env.pool.query('SELECT language, subscribed FROM subscriptions WHERE token = $1', ['0'.repeat(64)])).rows[0];
    expect(row).to.deep.equal({ language: 'de', subscribed: false });
  });
});
