// No tenant can see or steer another's sends through the cluster. A Send in a namespace
// without the App (or with another App) annotated with another namespace's send id shows nothing
// of it; an App cannot claim another app's id, until an administrator moves it.
import { expect } from 'chai';
import { stringify } from 'yaml';
import { useTestEnv } from '../env/index.js';
import { makeP8 } from '../support/apps.js';
import { createKey } from '../../core/apps/keys.js';
import { moveAppId } from '../../core/apps/app-store.js';
import { externalIdAuthHash } from '../../core/apps/identity.js';
import { useTestApi } from '../support/api-server.js';
import type { RunningController } from '../../controller/index.js';
import type { KubeClients } from '../../controller/kube/client.js';
import { condition, manifest, ok, startTestController, useControlPlane, waitFor } from './harness.js';

describe('controller tenancy: Sends and app ids stay within their App', function () {
  this.timeout(120_000);
  let controller: (RunningController & { clients: KubeClients }) | undefined;
  after(async () => {
    await controller?.stop();
  });
  const env = useTestEnv();
  const api = useTestApi(env);
  const kube = useControlPlane();
  let appA: string;
  let sendId: number;

  const app = (name: string, namespace: string, extra: Record<string, unknown> = {}) =>
    manifest('App', name, {
      spec: { bundleId: 'dev.herald.tenancy', credentials: { type: 'token', secretRef: { name: 'apns' }, keyId: 'ABC123DEFG', teamId: 'TEAM123456' }, ...extra },
    }, namespace);
  const ready = (name: string, namespace: string, want = 'True') =>
    waitFor(`App ${namespace}/${name} Ready=${want}`, async () => {
      const o = await kube.getJson('app', name, '-n', namespace);
      return condition(o, 'Ready')?.status === want ? o : undefined;
    });
  const forged = (name: string, namespace: string, labels: Record<string, string>, ownerReferences: unknown[] = []) =>
    stringify({
      apiVersion: 'herald.dev/v1alpha1', kind: 'Send',
      metadata: { name, namespace, labels, ownerReferences, annotations: { 'herald.dev/send-id': String(sendId) } },
      spec: { appRef: { name: 'shop' }, contents: { en: 'anything' }, included_segments: ['All'] },
    });
  const accepted = (name: string, namespace: string) =>
    waitFor(`Send ${namespace}/${name} Accepted`, async () => {
      const o = await kube.getJson('send', name, '-n', namespace);
      return condition(o, 'Accepted') ? o : undefined;
    });

  before(async function () {
    this.timeout(180_000);
    controller = await startTestController(env, kube.cp.kubeconfig);
    for (const ns of ['team-a', 'team-b', 'team-c']) {
      ok(await kube.kubectl(['create', 'namespace', ns]));
      await kube.apply(manifest('Secret', 'apns', { type: 'Opaque', stringData: { 'key.p8': makeP8() } }, ns));
    }
    await kube.apply(app('shop', 'team-a'));
    appA = (await ready('shop', 'team-a')).status.appId;
    const { key } = await createKey(env.pool, appA, {});
    const rest = await api.request('POST', '/api/v1/notifications', { key, body: { app_id: appA, contents: { en: 'Team A secret offer' }, include_external_ids: ['nobody'] } });
    expect(rest.status).to.be.oneOf([200, 201, 202]);
    sendId = Number(rest.body.id);
    await kube.apply(app('shop', 'team-b'));
    await ready('shop', 'team-b');
  });

  it('a Send annotated with another namespace\'s send id, in a namespace without an App, shows nothing of it', async () => {
    await kube.apply(forged('peek', 'team-c', {}));
    const o = await accepted('peek', 'team-c');
    expect(condition(o, 'Accepted')).to.include({ status: 'False', reason: 'NotAMirror' });
    expect(o.status).to.not.have.any.keys('id', 'total', 'sent', 'failed');
    expect(JSON.stringify(o.status)).to.not.include('Team A');
  });

  it('a forged mirror with the controller\'s labels and owned by its own App, in a namespace whose App has the same name, shows nothing either', async () => {
    const own = await kube.getJson('app', 'shop', '-n', 'team-b');
    const owner = { apiVersion: 'herald.dev/v1alpha1', kind: 'App', name: 'shop', uid: own.metadata.uid };
    await kube.apply(forged('peek', 'team-b', { 'herald.dev/source': 'api', 'herald.dev/app': 'shop' }, [owner]));
    const o = await accepted('peek', 'team-b');
    expect(condition(o, 'Accepted')).to.include({ status: 'False', reason: 'NotAMirror' });
    expect(o.status).to.not.have.any.keys('id', 'total', 'sent', 'failed');
  });

  it('an App naming another app\'s id in spec.appId is refused without learning whose it is; an admin move lets it adopt the id', async () => {
    await kube.apply(app('intruder', 'team-c', { appId: appA }));
    const refused = await ready('intruder', 'team-c', 'False');
    expect(condition(refused, 'Ready')).to.include({ reason: 'AppIdConflict' });
    expect(condition(refused, 'Ready')!.message).to.not.include('team-a');
    ok(await kube.kubectl(['delete', 'app', 'shop', '-n', 'team-a', '--wait=true', '--timeout=30s']));
    await moveAppId(env.pool, appA, 'team-c/intruder');
    ok(await kube.kubectl(['annotate', 'app', 'intruder', '-n', 'team-c', 'herald.dev/nudge=1']));
    const adopted = await ready('intruder', 'team-c');
    expect(adopted.status.appId).to.equal(appA);
  });

  it('an App with identityVerification gets its identity secret in a Secret it owns; raising rotation replaces it', async () => {
    await kube.apply(app('verified', 'team-a', { identityVerification: {} }));
    const issued = async (rotation: number) => {
      const o = await waitFor(`identity secret ${rotation}`, async () => {
        const a = await kube.getJson('app', 'verified', '-n', 'team-a');
        return a.status?.identity?.rotation === rotation && condition(a, 'Ready')?.status === 'True' ? a : undefined;
      });
      const secret = await kube.getJson('secret', o.status.identity.secretName, '-n', 'team-a');
      return { appId: o.status.appId as string, secret: Buffer.from(secret.data.identitySecret, 'base64').toString() };
    };
    const first = await issued(0);
    const register = (externalId: string, hash?: string) =>
      api!.request('POST', `/api/v1/apps/${first.appId}/subscriptions`, { body: { token: randomToken(), external_id: externalId, external_id_auth_hash: hash } });
    expect((await register('dana')).status).to.equal(403);
    expect((await register('dana', externalIdAuthHash(first.secret, 'dana'))).status).to.equal(201);
    ok(await kube.kubectl(['patch', 'app', 'verified', '-n', 'team-a', '--type=merge', '-p', '{"spec":{"identityVerification":{"rotation":1}}}']));
    const second = await issued(1);
    expect(second.secret).to.not.equal(first.secret);
    expect((await register('dana', externalIdAuthHash(first.secret, 'dana'))).status).to.equal(403);
    expect((await register('dana', externalIdAuthHash(second.secret, 'dana'))).status).to.equal(201);
  });
});

let tokens = 0;
const randomToken = () => (0xbeef0000 + ++tokens).toString(16).padStart(64, '0');
