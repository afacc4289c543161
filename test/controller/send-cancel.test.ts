// Cancel and key scopes through the cluster: a Send's spec.cancel stops it as the REST
// DELETE does and the Send shows canceled; the rest of the spec stays immutable and a cancel cannot
// be undone; an App's apiKeys scope read issues a key that may read but not send, and a scope
// change in the spec follows.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, makeP8 } from '../support/apps.js';
import type { RunningController } from '../../controller/index.js';
import type { KubeClients } from '../../controller/kube/client.js';
import { condition, manifest, startTestController, useControlPlane, waitFor } from './harness.js';

describe('Send cancel and key scopes (real kube-apiserver)', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  const api = useTestApi(env);
  const kube = useControlPlane();
  let controller: RunningController & { clients: KubeClients };
  let appId: string;
  const keys: Record<string, string> = {};

  const app = (viewerScope: 'read' | 'send') => manifest('App', 'shop', {
    spec: {
      bundleId: 'dev.herald.shop',
      credentials: { type: 'token', secretRef: { name: 'shop-apns' }, keyId: 'ABC123DEFG', teamId: 'TEAM123456' },
      apiKeys: [{ name: 'backend' }, { name: 'viewer', scope: viewerScope }],
    },
  });
  const send = (extra: Record<string, unknown> = {}) => ({ app_id: appId, contents: { en: 'x' }, included_segments: ['All'], ...extra });

  before(async function () {
    this.timeout(180_000);
    controller = await startTestController(env, kube.cp.kubeconfig);
    await kube.apply(manifest('Secret', 'shop-apns', { type: 'Opaque', stringData: { 'key.p8': makeP8() } }));
    await kube.apply(app('read'));
    const ready = await waitFor('App shop ready', async () => {
      const o = await kube.getJson('app', 'shop');
      return condition(o, 'Ready')?.status === 'True' && o.status.keys?.length === 2 ? o : undefined;
    });
    appId = ready.status.appId;
    for (const k of ready.status.keys) keys[k.name] = Buffer.from((await kube.getJson('secret', k.secretName)).data.apiKey, 'base64').toString();
    await addDevices(env.pool, appId, [{}, {}, {}]);
  });
  after(async () => {
    await controller?.stop();
  });

  it('issues a read key from apiKeys scope: it reads but may not send; a scope change follows the spec', async () => {
    expect((await api.request('GET', `/api/v1/notifications?app_id=${appId}`, { key: keys.viewer })).status).to.equal(200);
    expect((await api.request('POST', '/api/v1/notifications', { key: keys.viewer, body: send() })).status).to.equal(403);
    await kube.apply(app('send'));
    await waitFor('viewer key of scope send', async () =>
      (await env.pool.query(`SELECT scope FROM api_keys WHERE app_id = $1 AND name = 'viewer' AND revoked_at IS NULL`, [appId])).rows[0]?.scope === 'send');
    await waitFor('the key cache to see it', async () =>
      (await api.request('POST', '/api/v1/notifications', { key: keys.viewer, body: send({ send_after: new Date(Date.now() + 3600_000).toISOString() }) })).status === 200);
  });

  it('spec.cancel stops a scheduled Send; the rest of the spec stays immutable and the cancel cannot be undone', async () => {
    const spec = { appRef: { name: 'shop' }, contents: { en: 'Tomorrow' }, included_segments: ['All'], send_after: new Date(Date.now() + 86_400_000).toISOString() };
    await kube.apply(manifest('Send', 'later', { spec }));
    const accepted = await waitFor('Send scheduled', async () => {
      const o = await kube.getJson('send', 'later');
      return o.status?.status === 'scheduled' ? o : undefined;
    });
    expect(accepted.status.canceled).to.equal(false);
    const edit = await kube.kubectl(['patch', 'send', 'later', '--type=merge', '-p', JSON.stringify({ spec: { contents: { en: 'Changed' } } })]);
    expect(edit.code).to.not.equal(0);
    expect(edit.stderr).to.contain('spec is immutable');
    const cancel = await kube.kubectl(['patch', 'send', 'later', '--type=merge', '-p', '{"spec":{"cancel":true}}']);
    expect(cancel.code, cancel.stderr).to.equal(0);
    const canceled = await waitFor('Send canceled', async () => {
      const o = await kube.getJson('send', 'later');
      return o.status?.canceled === true ? o : undefined;
    });
    expect(canceled.status.status).to.equal('draft');
    const stats = await api.request('GET', `/api/v1/notifications/${canceled.status.id}`, { key: keys.backend });
    expect(stats.body).to.include({ status: 'draft', canceled: true });
    const undo = await kube.kubectl(['patch', 'send', 'later', '--type=merge', '-p', '{"spec":{"cancel":false}}']);
    expect(undo.code).to.not.equal(0);
    expect(undo.stderr).to.contain('a cancel cannot be undone');
  });

  it('a Send created with cancel: true is never submitted', async () => {
    await kube.apply(manifest('Send', 'never', { spec: { appRef: { name: 'shop' }, contents: { en: 'Never sent' }, included_segments: ['All'], cancel: true } }));
    const refused = await waitFor('Accepted=False Canceled', async () => {
      const o = await kube.getJson('send', 'never');
      return condition(o, 'Accepted')?.reason === 'Canceled' ? o : undefined;
    });
    expect(refused.status).to.include({ canceled: true });
    expect(refused.status.id).to.equal(undefined);
    const rows = await env.pool.query(`SELECT count(*)::int AS n FROM sends WHERE request->'contents'->>'en' = 'Never sent'`);
    expect(rows.rows[0].n).to.equal(0);
  });
});
