// The kube tier itself and our CRDs, against a real kube-apiserver + etcd and the real kubectl.
import { CustomObjectsApi, KubeConfig, makeInformer, type KubernetesObject } from '@kubernetes/client-node';
import { expect } from 'chai';
import { stringify } from 'yaml';
import { startControlPlane, type ControlPlane, type KubectlResult } from './control-plane.js';

const app = (name: string, spec: Record<string, unknown>) =>
  stringify({ apiVersion: 'herald.dev/v1alpha1', kind: 'App', metadata: { name }, spec });
const send = (name: string, spec: Record<string, unknown>) =>
  stringify({ apiVersion: 'herald.dev/v1alpha1', kind: 'Send', metadata: { name }, spec });

const demoApp = {
  appId: '8e9f1c2a-4b5d-4e6f-9a0b-1c2d3e4f5a6b',
  bundleId: 'dev.herald.demo',
  credentials: { type: 'token', secretRef: { name: 'demo-apns' }, keyId: 'ABC123DEFG', teamId: 'TEAM123456' },
  billing: { invoiceOverdue: false },
  apiKeys: [{ name: 'backend', allowIPs: ['10.0.0.0/8', '192.168.1.7'] }],
  segments: [{ name: 'Power users', conditions: [{ key: 'level', relation: '>', value: '10' }] }],
};
const welcome = {
  appRef: { name: 'demo' },
  contents: { en: 'Welcome back', fr: 'Bon retour' },
  headings: { en: 'Hello' },
  included_segments: ['Power users'],
  data: { screen: 'home' },
  buttons: [{ id: 'open', text: 'Open' }],
  throttle_rate_per_minute: 600,
  idempotency_key: 'welcome-1',
};

function ok(result: KubectlResult): string {
  expect(result.code, `kubectl failed: ${result.stderr}`).to.equal(0);
  return result.stdout;
}

function headers(table: string): string[] {
  return table.split('\n')[0].trim().split(/\s{2,}|\s+/);
}

describe('kube tier: control plane and CRDs', function () {
  let cp: ControlPlane;

  before(async function () {
    this.timeout(60 * 60 * 1000); // the first run builds kube-apiserver and etcd
    cp = await startControlPlane({ crds: true });
  });

  after(async () => {
    await cp?.stop();
  });

  it('runs kube-apiserver v1.33.13, within the installed kubectl\'s skew', async () => {
    const result = await cp.kubectl(['version', '-o', 'json']);
    expect(JSON.parse(ok(result)).serverVersion.gitVersion).to.equal('v1.33.13');
    expect(result.stderr).to.not.contain('WARNING');
  });

  it('serves both CRDs in the herald category', async () => {
    ok(await cp.kubectl(['apply', '-f', '-'], { input: app('demo', demoApp) }));
    ok(await cp.kubectl(['apply', '-f', '-'], { input: send('welcome', welcome) }));
    const all = ok(await cp.kubectl(['get', 'herald', '-o', 'name']));
    expect(all.trim().split('\n').sort()).to.deep.equal(['app.herald.dev/demo', 'send.herald.dev/welcome']);
    const short = ok(await cp.kubectl(['get', 'happ,hsend', '-o', 'name']));
    expect(short).to.contain('app.herald.dev/demo').and.to.contain('send.herald.dev/welcome');
  });

  it('applies schema defaults', async () => {
    const got = JSON.parse(ok(await cp.kubectl(['get', 'app', 'demo', '-o', 'json'])));
    expect(got.spec.environment).to.equal('production');
    expect(got.spec.apiKeys[0].revoked).to.equal(false);
  });

  it('shows the printer columns of kubectl get apps and sends', async () => {
    expect(headers(ok(await cp.kubectl(['get', 'apps'])))).to.deep.equal(['NAME', 'BUNDLE', 'READY', 'FCM', 'PAUSED', 'EVENTS', 'AGE']);
    const apps = ok(await cp.kubectl(['get', 'apps', '--no-headers']));
    expect(apps).to.match(/^demo\s+dev\.herald\.demo\s+false\s+\S+/);
    expect(headers(ok(await cp.kubectl(['get', 'sends']))))
      .to.deep.equal(['NAME', 'STATUS', 'TOTAL', 'SENT', 'FAILED', 'REMAINING', 'AGE']);
    expect(headers(ok(await cp.kubectl(['get', 'sends', '-o', 'wide']))))
      .to.deep.equal(['NAME', 'STATUS', 'TOTAL', 'SENT', 'FAILED', 'REMAINING', 'AGE', 'APP', 'MESSAGE']);
  });

  it('refuses a Send naming two targets, with the CEL message', async () => {
    const twoTargets = { ...welcome, include_external_ids: ['user-1'] };
    const result = await cp.kubectl(['apply', '-f', '-'], { input: send('two-targets', twoTargets) });
    expect(result.code).to.not.equal(0);
    expect(result.stderr).to.contain('name exactly one target');
    const none = { appRef: { name: 'demo' }, contents: { en: 'x' } };
    const noTarget = await cp.kubectl(['apply', '-f', '-'], { input: send('no-target', none) });
    expect(noTarget.stderr).to.contain('name exactly one target');
  });

  // Table of objects the schema must refuse, each with the words the refusal must contain.
  const refused: Array<[string, string, string]> = [
    ['token credentials without keyId', app('bad-1', { bundleId: 'a.b', credentials: { type: 'token', secretRef: { name: 's' } } }), 'token credentials need keyId and teamId'],
    ['an apiKey allowIP that is not an address', app('bad-2', { bundleId: 'a.b', apiKeys: [{ name: 'k', allowIPs: ['10.0.0.0/33'] }] }), 'must be an IP address or a CIDR range'],
    ['a segment named like a built-in one', app('bad-3', { bundleId: 'a.b', segments: [{ name: 'Active Users', conditions: [{ key: 'k', relation: 'exists' }] }] }), 'reserved for a built-in segment'],
    ['a > condition without a value', app('bad-4', { bundleId: 'a.b', segments: [{ name: 's', conditions: [{ key: 'k', relation: '>' }] }] }), 'value is required with relations'],
    ['a tag = without a value', send('bad-4b', { ...welcome, included_segments: undefined, tag: { key: 'k', relation: '=' } }), 'value is required with relations'],
    ['a Subscription ID that is not a UUID', send('bad-4c', { ...welcome, included_segments: undefined, include_subscription_ids: ['nope'] }), 'include_subscription_ids'],
    ['ios_badgeType SetTo without a count', send('bad-4d', { ...welcome, ios_badgeType: 'SetTo' }), 'ios_badgeCount is required'],
    ['an appId that is not a UUID', app('bad-5', { bundleId: 'a.b', appId: 'nope' }), 'spec.appId'],
    ['two buttons', send('bad-6', { ...welcome, buttons: [{ id: 'a', text: 'a' }, { id: 'b', text: 'b' }] }), 'spec.buttons'],
    ['a throttle above 100000', send('bad-7', { ...welcome, throttle_rate_per_minute: 100001 }), 'spec.throttle_rate_per_minute'],
    ['delayed_option without send_after', send('bad-8', { ...welcome, delayed_option: 'timezone' }), 'delayed_option timezone needs send_after'],
    ['an idempotency key with a space', send('bad-9', { ...welcome, idempotency_key: 'a b' }), 'spec.idempotency_key'],
  ];
  for (const [what, manifest, words] of refused) {
    it(`refuses ${what}`, async () => {
      const result = await cp.kubectl(['create', '--dry-run=server', '-f', '-'], { input: manifest });
      expect(result.code).to.not.equal(0);
      expect(result.stderr).to.contain(words);
    });
  }

  // The CRD must never refuse what the REST API accepts: the controller mirrors API sends as Sends.
  const accepted: Array<[string, string]> = [
    ['a tag exists with a value (ignored, as the API does)', send('ok-1', { ...welcome, included_segments: undefined, tag: { field: 'tag', key: 'vip', relation: 'exists', value: 'x' } })],
    ['an idempotency key with an underscore', send('ok-2', { ...welcome, idempotency_key: 'order_42.v1-a' })],
    ['a timezone send with delivery_time_of_day', send('ok-3', { ...welcome, delayed_option: 'timezone', delivery_time_of_day: '9:00AM' })],
    ['an empty list target (an empty audience)', send('ok-4', { ...welcome, included_segments: undefined, include_external_ids: [] })],
    ['APNs options', send('ok-5', { ...welcome, ttl: 3600, priority: 10, collapse_id: 'score', ios_badgeType: 'Increase', ios_badgeCount: 1 })],
    ['a scheduled list send', send('ok-6', { ...welcome, included_segments: undefined, include_subscription_ids: ['5b0c6d1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e'], send_after: '2026-11-24T14:00:00-07:00' })],
  ];
  for (const [what, manifest] of accepted) {
    it(`accepts ${what}`, async () => {
      ok(await cp.kubectl(['create', '--dry-run=server', '-f', '-'], { input: manifest }));
    });
  }

  it('keeps appId once set: no change, no removal', async () => {
    const changed = await cp.kubectl(['patch', 'app', 'demo', '--type=merge', '-p',
      JSON.stringify({ spec: { appId: '00000000-0000-4000-8000-000000000000' } })]);
    expect(changed.code).to.not.equal(0);
    expect(changed.stderr).to.contain('appId is immutable once set');
    const removed = await cp.kubectl(['patch', 'app', 'demo', '--type=json', '-p', '[{"op":"remove","path":"/spec/appId"}]']);
    expect(removed.code).to.not.equal(0);
    expect(removed.stderr).to.contain('appId cannot be removed once set');
    // Other fields stay editable, and an App without appId may get one later.
    ok(await cp.kubectl(['patch', 'app', 'demo', '--type=merge', '-p', '{"spec":{"billing":{"invoiceOverdue":true}}}']));
    ok(await cp.kubectl(['apply', '-f', '-'], { input: app('later', { bundleId: 'dev.herald.later' }) }));
    ok(await cp.kubectl(['patch', 'app', 'later', '--type=merge', '-p', JSON.stringify({ spec: { appId: demoApp.appId } })]));
  });

  it('keeps a Send spec unchanged once created', async () => {
    const result = await cp.kubectl(['patch', 'send', 'welcome', '--type=merge', '-p', '{"spec":{"contents":{"en":"Changed"}}}']);
    expect(result.code).to.not.equal(0);
    expect(result.stderr).to.contain('spec is immutable');
  });

  it('writes status through the status subresource', async () => {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const appStatus = {
      status: {
        appId: demoApp.appId,
        observedGeneration: 1,
        conditions: [{ type: 'Ready', status: 'True', reason: 'CredentialsValid', message: 'ready to send', lastTransitionTime: now, observedGeneration: 1 }],
        keys: [{ name: 'backend', id: 'hk_1a2b', secretName: 'demo-key-backend', createdAt: now }],
      },
    };
    ok(await cp.kubectl(['patch', 'app', 'demo', '--subresource=status', '--type=merge', '-p', JSON.stringify(appStatus)]));
    expect(ok(await cp.kubectl(['get', 'app', 'demo', '--no-headers']))).to.match(/^demo\s+dev\.herald\.demo\s+True\s+true\s/);

    const sendStatus = { status: { id: 9007199254740000, status: 'sending', total: 1200, processed: 500, remaining: 700, sent: 480, failed: 5, skipped: 15, clicked: 0, message: 'Queued for 1200 devices', source: 'kubernetes', observedGeneration: 1 } };
    ok(await cp.kubectl(['patch', 'send', 'welcome', '--subresource=status', '--type=merge', '-p', JSON.stringify(sendStatus)]));
    const row = ok(await cp.kubectl(['get', 'send', 'welcome', '-o', 'wide', '--no-headers']));
    expect(row).to.match(/^welcome\s+sending\s+1200\s+480\s+5\s+700\s+\S+\s+demo\s+Queued for 1200 devices/);

    // The main resource ignores status, so only the controller's status writes count.
    ok(await cp.kubectl(['patch', 'app', 'demo', '--type=merge', '-p', '{"status":{"appId":"ignored"}}']));
    const got = JSON.parse(ok(await cp.kubectl(['get', 'app', 'demo', '-o', 'json'])));
    expect(got.status.appId).to.equal(demoApp.appId);
  });

  it('lets @kubernetes/client-node list Apps with the kubeconfig', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(cp.kubeconfig);
    const api = kc.makeApiClient(CustomObjectsApi);
    const list = (await api.listNamespacedCustomObject({
      group: 'herald.dev', version: 'v1alpha1', namespace: 'default', plural: 'apps',
    })) as { items: Array<{ metadata: { name: string }; spec: { bundleId: string } }> };
    expect(list.items.map((i) => i.metadata.name).sort()).to.deep.equal(['demo', 'later']);
    expect(list.items.find((i) => i.metadata.name === 'demo')?.spec.bundleId).to.equal('dev.herald.demo');
  });

  it('survives an apiserver restart: kubectl works, objects stay, a restarted informer sees new ones', async function () {
    this.timeout(180_000);
    const kc = new KubeConfig();
    kc.loadFromFile(cp.kubeconfig);
    const api = kc.makeApiClient(CustomObjectsApi);
    const path = '/apis/herald.dev/v1alpha1/namespaces/default/apps';
    const list = () => api.listNamespacedCustomObject({ group: 'herald.dev', version: 'v1alpha1', namespace: 'default', plural: 'apps' }) as Promise<{ metadata: object; items: KubernetesObject[] }>;
    const informer = makeInformer(kc, path, list);
    // client-node's informer stops on a watch error; restarting it is the caller's job (the
    // controller does it with back-off). The restart below makes exactly that happen.
    let stopped = false;
    informer.on('error', () => { if (!stopped) setTimeout(() => { if (!stopped) void informer.start().catch(() => {}); }, 500); });
    const seen = new Promise<string>((resolve) => informer.on('add', (obj) => {
      if (obj.metadata?.name === 'after-restart') resolve(obj.metadata.name);
    }));
    await informer.start();
    try {
      await cp.restartApiserver();
      ok(await cp.kubectl(['apply', '-f', '-'], { input: app('after-restart', { bundleId: 'dev.herald.after' }) }));
      expect(await seen).to.equal('after-restart');
    } finally {
      stopped = true;
      await informer.stop();
    }
    expect(ok(await cp.kubectl(['get', 'apps', '-o', 'name'])).trim().split('\n').sort())
      .to.deep.equal(['app.herald.dev/after-restart', 'app.herald.dev/demo', 'app.herald.dev/later']);
    expect(ok(await cp.kubectl(['get', 'send', 'welcome', '-o', 'jsonpath={.status.status}']))).to.equal('sending');
    ok(await cp.kubectl(['apply', '-f', '-'], { input: send('after-restart', { ...welcome, idempotency_key: 'after-restart' }) }));
  });
});
