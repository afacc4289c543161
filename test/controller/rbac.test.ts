// The controller's RBAC (charts/herald/templates/controller-rbac.yaml, rendered by a real helm):
// the controller does all of its work as the chart's ServiceAccount, and that account can do
// nothing broader (kubectl auth can-i).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse, stringify } from 'yaml';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, makeP8 } from '../support/apps.js';
import { getHelm, valuesDir } from '../chart/helm.js';
import { sweepSends } from '../../controller/sends/retention.js';
import type { RunningController } from '../../controller/index.js';
import type { KubeClients } from '../../controller/kube/client.js';
import { condition, manifest, ok, startTestController, testLogger, useControlPlane, waitFor } from './harness.js';

const NS = 'herald-system';
const SA = `system:serviceaccount:${NS}:herald-controller`;

describe('controller RBAC: works under the chart Role/ClusterRole and nothing broader', function () {
  this.timeout(120_000);
  let controller: (RunningController & { clients: KubeClients }) | undefined;
  after(async () => {
    await controller?.stop();
  });
  const env = useTestEnv();
  const api = useTestApi(env);
  const kube = useControlPlane();
  let saKubeconfig: string;

  before(async function () {
    this.timeout(30 * 60_000); // helm may be built on a first run
    const helm = await getHelm();
    let rendered: string;
    try {
      // Apps live in `default` only: Secrets are granted there and nowhere else.
      const ms = await helm.template(['--namespace', NS, '--show-only', 'templates/controller-rbac.yaml', '--show-only', 'templates/controller-secrets-rbac.yaml',
        '--set', 'controller.appNamespaces={default}', '-f', join(valuesDir, 'minimal.yaml')]);
      rendered = ms.map((m) => stringify(m)).join('---\n');
    } finally {
      helm.cleanup();
    }
    ok(await kube.kubectl(['create', 'namespace', NS]));
    ok(await kube.kubectl(['create', 'serviceaccount', 'herald-controller', '-n', NS]));
    await kube.apply(rendered);
    // A kubeconfig that impersonates the ServiceAccount (the admin is in system:masters, so it may).
    const config = parse(readFileSync(kube.cp.kubeconfig, 'utf8'));
    for (const u of config.users) u.user.as = SA;
    saKubeconfig = join(kube.cp.dir, 'controller-sa.kubeconfig');
    writeFileSync(saKubeconfig, stringify(config));
    controller = await startTestController(env, kube.cp.kubeconfig, { kubeconfig: saKubeconfig, leaseNamespace: NS, leaseName: 'herald-controller' });
  });

  const canI = async (...args: string[]) => {
    const r = await kube.kubectl(['auth', 'can-i', '--as', SA, ...args]);
    return r.stdout.trim();
  };

  it('does all of its work as the ServiceAccount: Apps, key Secrets, Events, Sends, mirrors, retention, finalizers, its Lease', async () => {
    expect(await canI('get', 'lease/herald-controller', '-n', NS)).to.equal('yes');
    // Secrets in the release namespace (the first App of the chart's notes lives there) and in appNamespaces only.
    expect(await canI('list', 'secrets', '-n', NS)).to.equal('yes');
    expect(await canI('create', 'secrets', '-n', 'default')).to.equal('yes');
    await kube.apply(manifest('Secret', 'rbac-apns', { type: 'Opaque', stringData: { 'key.p8': makeP8() } }));
    await kube.apply(manifest('App', 'rbac', {
      spec: { bundleId: 'dev.herald.rbac', credentials: { type: 'token', secretRef: { name: 'rbac-apns' }, keyId: 'ABC123DEFG', teamId: 'TEAM123456' }, apiKeys: [{ name: 'backend' }] },
    }));
    const app = await waitFor('App Ready', async () => {
      const o = await kube.getJson('app', 'rbac');
      return condition(o, 'Ready')?.status === 'True' ? o : undefined;
    });
    const secret = await kube.getJson('secret', app.status.keys[0].secretName);
    const key = Buffer.from(secret.data.apiKey, 'base64').toString();
    const events = ok(await kube.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=rbac', '-o', 'custom-columns=R:.reason', '--no-headers']));
    expect(events).to.contain('KeyIssued');

    await addDevices(env.pool, app.status.appId, [{}, {}]);
    await kube.apply(manifest('Send', 'rbac-send', { spec: { appRef: { name: 'rbac' }, contents: { en: 'Hi' }, include_external_ids: [] } }));
    // An empty list is an empty audience: approved at once, so retention may take it.
    await waitFor('the Send approved', async () => (await kube.getJson('send', 'rbac-send')).status?.status === 'approved' || undefined);
    const rest = await api!.request('POST', '/api/v1/notifications', { key, body: { app_id: app.status.appId, contents: { en: 'All' }, included_segments: ['All'] } });
    expect(rest.status).to.equal(202);
    await waitFor('the mirror', async () => (await kube.kubectl(['get', 'send', `send-${rest.body.id}`])).code === 0 || undefined, 10_000);

    const deleted = await sweepSends({ custom: controller!.clients.custom, logger: testLogger(), list: () => controller!.sends.informer.list().filter((s) => s.metadata.name === 'rbac-send') }, 1);
    expect(deleted).to.equal(1);
    ok(await kube.kubectl(['delete', 'app', 'rbac', '--wait=true', '--timeout=30s']));
    expect(controller!.isLeader).to.equal(true);
  });

  // What the role must not allow: each row would be a broader grant than the controller needs.
  const refused: string[][] = [
    ['list', 'pods', '-A'],
    ['get', 'secrets', '-n', 'default'],
    ['update', 'secrets', '-n', 'default'],
    ['patch', 'secrets', '-n', 'default'],
    ['delete', 'secrets', '-n', 'default'],
    ['create', 'deployments', '-n', 'default'],
    ['update', 'apps.herald.dev', '-n', 'default'],
    ['delete', 'apps.herald.dev', '-n', 'default'],
    ['create', 'apps.herald.dev', '-n', 'default'],
    ['update', 'sends.herald.dev', '-n', 'default'],
    ['patch', 'sends.herald.dev', '-n', 'default'],
    ['delete', 'events', '-n', 'default'],
    ['get', 'lease/someone-else', '-n', NS],
    ['update', 'lease/someone-else', '-n', NS],
    ['create', 'leases', '-n', 'default'],
    ['create', 'clusterrolebindings'],
    ['list', 'secrets', '-A'],
    ['watch', 'secrets', '-A'],
    ['list', 'secrets', '-n', 'kube-system'],
    ['create', 'secrets', '-n', 'kube-system'],
    ['impersonate', 'serviceaccounts'],
  ];
  for (const args of refused) {
    it(`cannot ${args.join(' ')}`, async () => {
      expect(await canI(...args)).to.equal('no');
    });
  }

  it('can exactly what it uses', async () => {
    const allowed: string[][] = [
      ['watch', 'apps.herald.dev', '-A'],
      ['patch', 'apps.herald.dev/status', '-n', 'default'],
      ['create', 'sends.herald.dev', '-n', 'default'],
      ['delete', 'sends.herald.dev', '-n', 'default'],
      ['list', 'secrets', '-n', 'default'],
      ['watch', 'secrets', '-n', 'default'],
      ['create', 'secrets', '-n', 'default'],
      ['create', 'events', '-n', 'default'],
      ['update', 'lease/herald-controller', '-n', NS],
    ];
    for (const args of allowed) expect(await canI(...args), args.join(' ')).to.equal('yes');
  });

  it('an App in a namespace not granted gets CredentialsReady=False, SecretsNotReadable, and its Secret stays unread', async () => {
    ok(await kube.kubectl(['create', 'namespace', 'ungranted']));
    await kube.apply(manifest('Secret', 'apns', { type: 'Opaque', stringData: { 'key.p8': makeP8() } }, 'ungranted'));
    await kube.apply(manifest('App', 'elsewhere', {
      spec: { bundleId: 'dev.herald.elsewhere', credentials: { type: 'token', secretRef: { name: 'apns' }, keyId: 'ABC123DEFG', teamId: 'TEAM123456' } },
    }, 'ungranted'));
    const app = await waitFor('SecretsNotReadable', async () => {
      const o = await kube.getJson('app', 'elsewhere', '-n', 'ungranted');
      return condition(o, 'CredentialsReady')?.reason === 'SecretsNotReadable' ? o : undefined;
    }, 60_000);
    expect(condition(app, 'CredentialsReady')!.message).to.include('controller.appNamespaces');
  });
});
