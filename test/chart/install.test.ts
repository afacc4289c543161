// docs/install.md followed to the letter on a real kube-apiserver, with the chart's default
// values: `helm install` with the three URLs, then the first-App steps the chart's NOTES print (a
// Secret with the APNs key, an App, `kubectl wait … --for=condition=Ready`, the app id and the key
// from the key Secret) until the key works on the API. No kubelet runs pods here, so the controller
// runs beside the cluster exactly as its Deployment is rendered (its env, ConfigMap and Secrets,
// read back from the cluster) and as its ServiceAccount (a token from the TokenRequest API): with
// the chart's RBAC and nothing more. `--no-hooks`: the migrate Job needs a kubelet; the test's
// database is migrated already.
import { randomBytes } from 'node:crypto';
import { writeFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse, stringify } from 'yaml';
import { useTestEnv } from '../env/index.js';
import { startControlPlane, type ControlPlane } from '../kube/control-plane.js';
import { startHerald, type HeraldProcess } from '../support/processes.js';
import { startTestApi, type TestApi } from '../support/api-server.js';
import { makeP8 } from '../support/apps.js';
import { waitFor } from '../support/wait.js';
import { chartDir, useHelm } from './helm.js';

const NS = 'herald';

describe('docs/install.md with default values, to a Ready App whose key works', function () {
  this.timeout(180_000);
  const env = useTestEnv();
  const helm = useHelm();
  let cp: ControlPlane;
  let controller: HeraldProcess | undefined;
  let api: TestApi | undefined;

  before(async function () {
    this.timeout(60 * 60 * 1000); // the first run of the kube tier builds kube-apiserver and etcd
    cp = await startControlPlane();
  });
  after(async () => {
    await controller?.stop();
    await api?.close();
    await cp?.stop();
  });

  const kubectl = async (args: string[], input?: string) => {
    const r = await cp.kubectl(args, { input });
    expect(r.code, `kubectl ${args.join(' ')}: ${r.stderr}`).to.equal(0);
    return r.stdout;
  };

  /** The env of a Deployment's first container, resolved from the cluster as a kubelet would. */
  async function containerEnv(deployment: string): Promise<Record<string, string>> {
    const dep = JSON.parse(await kubectl(['get', 'deployment', deployment, '-n', NS, '-o', 'json']));
    const container = dep.spec.template.spec.containers[0];
    const data = async (kind: 'configmap' | 'secret', name: string): Promise<Record<string, string>> => {
      const obj = JSON.parse(await kubectl(['get', kind, name, '-n', NS, '-o', 'json']));
      const raw: Record<string, string> = obj.data ?? {};
      return kind === 'secret' ? Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()])) : raw;
    };
    const out: Record<string, string> = {};
    for (const from of container.envFrom ?? []) {
      Object.assign(out, from.configMapRef ? await data('configmap', from.configMapRef.name) : await data('secret', from.secretRef.name));
    }
    for (const e of container.env ?? []) {
      if (e.value !== undefined) out[e.name] = e.value;
      else if (e.valueFrom?.secretKeyRef) out[e.name] = (await data('secret', e.valueFrom.secretKeyRef.name))[e.valueFrom.secretKeyRef.key];
      else if (e.valueFrom?.configMapKeyRef) out[e.name] = (await data('configmap', e.valueFrom.configMapKeyRef.name))[e.valueFrom.configMapKeyRef.key];
      else if (e.valueFrom?.fieldRef) out[e.name] = e.valueFrom.fieldRef.fieldPath === 'metadata.namespace' ? NS : 'herald-controller-outside';
    }
    return out;
  }

  it('helm install, then the NOTES: Secret, App, Ready, app id and key; the key authenticates', async () => {
    const urls = env.childEnv();
    const installed = await helm().run(
      ['install', 'herald', chartDir, '-n', NS, '--create-namespace', '--no-hooks',
        '--set', `database.url=${urls.HERALD_DATABASE_URL}`, '--set', `redis.url=${urls.HERALD_REDIS_URL}`, '--set', `nats.url=${urls.HERALD_NATS_URL}`],
      { kubeconfig: cp.kubeconfig },
    );
    expect(installed.code, installed.stderr).to.equal(0);

    // The controller as its ServiceAccount.
    const token = (await kubectl(['create', 'token', 'herald-controller', '-n', NS, '--duration=1h'])).trim();
    const admin = parse(await readFile(cp.kubeconfig, 'utf8'));
    const asController = join(cp.dir, 'controller.kubeconfig');
    await writeFile(asController, stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: admin.clusters,
      users: [{ name: 'herald-controller', user: { token } }],
      contexts: [{ name: 'as-controller', context: { cluster: admin.clusters[0].name, user: 'herald-controller', namespace: NS } }],
      'current-context': 'as-controller',
    }), { mode: 0o600 });
    const rendered = await containerEnv('herald-controller');
    // The test's own stream and key prefixes keep it apart from other test files on the shared
    // NATS and Redis; the rest is the Deployment's.
    controller = await startHerald('controller', { ...rendered, ...env.childEnv({ HERALD_KUBECONFIG: asController }) }, { waitForPort: false });

    // "2. Create your first App", as NOTES.txt prints it for the release namespace.
    await kubectl(['create', 'secret', 'generic', 'shop-apns', '-n', NS, '--from-literal=key.p8=' + makeP8()]);
    await kubectl(['apply', '-n', NS, '-f', '-'], [
      'apiVersion: herald.dev/v1alpha1',
      'kind: App',
      'metadata: { name: shop }',
      'spec:',
      '  bundleId: com.example.shop',
      '  environment: production',
      '  credentials: { type: token, secretRef: { name: shop-apns }, keyId: ABC123DEFG, teamId: TEAM123456 }',
      '  apiKeys: [{ name: backend }]',
      '',
    ].join('\n'));
    const waited = await cp.kubectl(['wait', '-n', NS, 'app/shop', '--for=condition=Ready', '--timeout=60s']);
    expect(waited.code, `${waited.stderr}\n${JSON.stringify(await cp.kubectl(['get', 'app', 'shop', '-n', NS, '-o', 'jsonpath={.status.conditions}']))}\n${controller.output()}`).to.equal(0);

    const appId = await kubectl(['get', 'app', 'shop', '-n', NS, '-o', 'jsonpath={.status.appId}']);
    const secretName = await kubectl(['get', 'app', 'shop', '-n', NS, '-o', 'jsonpath={.status.keys[0].secretName}']);
    const key = Buffer.from(await kubectl(['get', 'secret', '-n', NS, secretName, '-o', 'jsonpath={.data.apiKey}']), 'base64').toString();
    expect(appId).to.match(/^[0-9a-f-]{36}$/);
    api = await startTestApi(env);
    const listed = await api.request('GET', `/api/v1/notifications?app_id=${appId}`, { key });
    expect(listed.status, JSON.stringify(listed.body)).to.equal(200);

    // "3. Register devices", as the notes' curl does, then "4. Send a first push": it counts the device.
    const registered = await api.request('POST', `/api/v1/apps/${appId}/subscriptions`, { body: { token: randomBytes(32).toString('hex'), language: 'en', tags: { plan: 'trial' } } });
    expect(registered.status, JSON.stringify(registered.body)).to.equal(201);
    const sent = await api.request('POST', '/api/v1/notifications', { key, body: { app_id: appId, contents: { en: 'Hello' }, included_segments: ['Subscribed Users'] } });
    expect(sent.body).to.include({ estimate: 1 });
  });

  it('an App in a namespace the chart does not grant says why in one sentence per condition, never a client dump', async () => {
    await kubectl(['create', 'namespace', 'elsewhere']);
    await kubectl(['apply', '-n', 'elsewhere', '-f', '-'], [
      'apiVersion: herald.dev/v1alpha1',
      'kind: App',
      'metadata: { name: news }',
      'spec:',
      '  bundleId: com.example.news',
      '  credentials: { type: token, secretRef: { name: news-apns }, keyId: ABC123DEFG, teamId: TEAM123456 }',
      '  apiKeys: [{ name: backend }]',
      '',
    ].join('\n'));
    const conditions = async () => JSON.parse((await kubectl(['get', 'app', 'news', '-n', 'elsewhere', '-o', 'jsonpath={.status.conditions}'])) || '[]') as Array<{ type: string; reason: string; message: string }>;
    const seen = await waitFor("the App's KeyNotIssued condition", async () => {
      const now = await conditions();
      return now.some((c) => c.reason === 'KeyNotIssued') && now;
    }, 60_000, 250);
    const byReason = Object.fromEntries(seen.map((c) => [c.reason, c.message]));
    expect(byReason.SecretsNotReadable).to.contain("controller.appNamespaces");
    expect(byReason.KeyNotIssued).to.match(/^API key backend could not be issued: Kubernetes answered 403 Forbidden: secrets is forbidden: .+; give the controller's ServiceAccount that permission .+\.$/);
    for (const c of seen) expect(c.message, c.type).to.not.match(/HTTP-Code|Headers|\n/);
  });
});
