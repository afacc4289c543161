// The Send controller end to end on a real kube-apiserver: kubectl-applied Sends go through the
// REST path to a real `herald sender` and the APNs simulator; REST sends are mirrored from
// JetStream; the pause rule shows in GET stats and kubectl alike; retention deletes old objects.
import { expect } from 'chai';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import { useTestEnv } from '../env/index.js';
import { useTestApi } from '../support/api-server.js';
import { addDevices, makeP8 } from '../support/apps.js';
import { startRole, type Proc } from '../e2e/harness.js';
import { sweepSends } from '../../controller/sends/retention.js';
import type { RunningController } from '../../controller/index.js';
import type { KubeClients } from '../../controller/kube/client.js';
import { condition, manifest, ok, startTestController, testLogger, useControlPlane, waitFor } from './harness.js';
import { inTransaction, type Queryable } from '../../core/store/db.js';

describe('Send controller (real kube-apiserver, kubectl, sender and APNs simulator)', function () {
  this.timeout(120_000);
  let controller: RunningController & { clients: KubeClients };
  let sim: ApnsSim;
  let sender: Proc | undefined;
  after(async () => {
    await sender?.kill('SIGKILL');
    await controller?.stop();
    await sim?.close();
  });
  const env = useTestEnv();
  const api = useTestApi(env);
  const kube = useControlPlane();
  let appId: string;
  let key: string;

  const deviceTokens = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({ token: prefix + i.toString(16).padStart(64 - prefix.length, '0'), tags: { plan: 'pro' } }));

  before(async function () {
    this.timeout(180_000);
    sim = await startApnsSim(); // no keys given: any well-formed ES256 provider token is accepted
    controller = await startTestController(env, kube.cp.kubeconfig);
    await kube.apply(manifest('Secret', 'shop-apns', { type: 'Opaque', stringData: { 'key.p8': makeP8() } }));
    await kube.apply(manifest('App', 'shop', {
      spec: {
        bundleId: 'dev.herald.shop',
        credentials: { type: 'token', secretRef: { name: 'shop-apns' }, keyId: 'ABC123DEFG', teamId: 'TEAM123456' },
        apiKeys: [{ name: 'backend' }],
        segments: [{ name: 'Pro', conditions: [{ key: 'plan', relation: '=', value: 'pro' }] }],
      },
    }));
    const app = await waitFor('App shop ready', async () => {
      const o = await kube.getJson('app', 'shop');
      return condition(o, 'Ready')?.status === 'True' ? o : undefined;
    });
    appId = app.status.appId;
    const secret = await kube.getJson('secret', app.status.keys[0].secretName);
    key = Buffer.from(secret.data.apiKey, 'base64').toString();
    await addDevices(env.pool, appId, deviceTokens('a1', 1200));
    sender = await startRole('sender', env.childEnv({ HERALD_APNS_URL: sim.url, HERALD_APNS_CA_FILE: sim.caFile, HERALD_SENDER_CONCURRENCY: '2' }));
  });

  const sendObj = (name: string) => kube.getJson('send', name);
  const final = (name: string) =>
    waitFor(`${name} to finish`, async () => {
      const o = await sendObj(name);
      return ['approved', 'draft'].includes(o.status?.status) && o.status.remaining === 0 ? o : undefined;
    }, 90_000, 300);

  it('a Send applied with kubectl is submitted like a REST call, reaches the simulator, and its id works with GET stats', async () => {
    const before = sim.stats().byStatus['200'] ?? 0;
    await kube.apply(manifest('Send', 'spring-sale', {
      spec: { appRef: { name: 'shop' }, contents: { en: 'Spring sale: 20% off' }, headings: { en: 'Shop' }, included_segments: ['Pro'] },
    }));
    const accepted = await waitFor('Accepted=True', async () => {
      const o = await sendObj('spring-sale');
      return condition(o, 'Accepted')?.status === 'True' && o.status.id ? o : undefined;
    });
    expect(accepted.status.source).to.equal('kubernetes');
    expect(condition(accepted, 'Accepted')!.reason).to.equal('Submitted');
    const done = await final('spring-sale');
    expect(done.status).to.include({ status: 'approved', total: 1200, sent: 1200, failed: 0, remaining: 0, processed: 1200 });
    expect((sim.stats().byStatus['200'] ?? 0) - before).to.equal(1200);
    const row = await env.pool.query('SELECT source FROM sends WHERE id = $1', [done.status.id]);
    expect(row.rows[0].source).to.equal('kubernetes');

    const stats = await api.request('GET', `/api/v1/notifications/${done.status.id}`, { key });
    expect(stats.status).to.equal(200);
    expect(stats.body).to.include({ id: done.status.id, status: 'approved', total_recipients: 1200, sent: 1200, remaining: 0 });
    // One submission, whatever the reconciles: exactly one send row for this object.
    const count = await env.pool.query(`SELECT count(*)::int AS n FROM sends WHERE source = 'kubernetes'`);
    expect(count.rows[0].n).to.equal(1);
  });

  it('an invalid Send gets Accepted=False with the message the REST call gives', async () => {
    const body = { contents: { en: 'Hi' }, included_segments: ['Nobody here'], url: 'http://shop.example/deal' };
    const rest = await api.request('POST', '/api/v1/notifications', { key, body: { app_id: appId, ...body } });
    expect(rest.status).to.equal(422);
    await kube.apply(manifest('Send', 'bad-send', { spec: { appRef: { name: 'shop' }, ...body } }));
    const refused = await waitFor('Accepted=False', async () => {
      const o = await sendObj('bad-send');
      return condition(o, 'Accepted')?.status === 'False' ? o : undefined;
    });
    const c = condition(refused, 'Accepted')!;
    expect(c.reason).to.equal('Invalid');
    expect(c.message).to.equal(rest.body.errors.join(' '));
    expect(refused.status.id).to.equal(undefined);
    const described = ok(await kube.kubectl(['describe', 'send', 'bad-send']));
    expect(described).to.match(/Warning\s+Invalid/);
  });

  it('a REST segment send shows up in kubectl get sends and its columns reach the final counts; list sends are not mirrored by default', async () => {
    const list = await api.request('POST', '/api/v1/notifications', { key, body: { app_id: appId, contents: { en: 'Just you' }, include_external_ids: ['x'] } });
    expect(list.status).to.equal(200);
    const created = await api.request('POST', '/api/v1/notifications', {
      key,
      body: { app_id: appId, contents: { en: 'Flash sale' }, included_segments: ['Subscribed Users'], data: { screen: 'sale' } },
    });
    expect(created.status).to.equal(202);
    const name = `send-${created.body.id}`;
    const mirrored = await waitFor('the mirror', async () => (await kube.kubectl(['get', 'send', name, '-o', 'json'])).code === 0 && sendObj(name), 10_000);
    expect(mirrored.metadata.labels).to.include({ 'herald.dev/source': 'api', 'herald.dev/app': 'shop' });
    expect(mirrored.spec).to.deep.include({ appRef: { name: 'shop' }, contents: { en: 'Flash sale' }, included_segments: ['Subscribed Users'], data: { screen: 'sale' } });
    const done = await final(name);
    expect(done.status).to.include({ id: created.body.id, source: 'api', status: 'approved', total: 1200, sent: 1200, remaining: 0 });
    expect(condition(done, 'Accepted')!.reason).to.equal('Mirrored');
    const table = ok(await kube.kubectl(['get', 'sends']));
    console.log(`\n$ kubectl get sends\n${table}`);
    expect(table).to.match(new RegExp(`${name}\\s+approved\\s+1200\\s+1200\\s+0\\s+0\\s`));
    expect(table).to.not.contain(`send-${list.body.id} `);
    const rows = await env.pool.query(`SELECT count(*)::int AS n FROM sends WHERE source = 'api' AND id = $1`, [created.body.id]);
    expect(rows.rows[0].n).to.equal(1); // mirrored, never sent again
  });

  it('a scheduled time-zone REST send with the iOS fields is mirrored with every field (none dropped, none refused by the CRD)', async () => {
    const ios = {
      subtitle: { en: 'Today only' }, ttl: 3600, priority: 10, collapse_id: 'sale-1', ios_badgeType: 'SetTo', ios_badgeCount: 2,
      ios_sound: 'ping.aiff', thread_id: 'sales', ios_interruption_level: 'time_sensitive', ios_relevance_score: 0.5,
      apns_alert: { 'loc-key': 'SALE', 'loc-args': ['20%'] }, name: 'spring sale', custom_data: { campaign: 7 },
    };
    const created = await api.request('POST', '/api/v1/notifications', {
      key,
      body: { app_id: appId, contents: { en: 'Sale' }, included_segments: ['Pro'], delayed_option: 'timezone', delivery_time_of_day: '9:00AM', ...ios },
    });
    expect(created.status).to.equal(200);
    expect(created.body.status).to.equal('scheduled');
    const name = `send-${created.body.id}`;
    const mirrored = await waitFor('the mirror', async () => (await kube.kubectl(['get', 'send', name, '-o', 'json'])).code === 0 && sendObj(name), 10_000);
    expect(mirrored.spec).to.deep.equal({
      appRef: { name: 'shop' }, contents: { en: 'Sale' }, included_segments: ['Pro'], delayed_option: 'timezone', delivery_time_of_day: '09:00', ...ios,
    });
  });

  it('invoiceOverdue during a running send: the pause rule, in GET stats and kubectl get sends alike', async () => {
    // 1,200 devices at 1,500 a minute: three chunks of 500, 20 s apart. Once the first is
    // delivered the test holds every chunk row of the send (a claim skips held rows) until the
    // controller has recorded the pause, so the pause lands mid-send by construction, not timing.
    await kube.apply(manifest('Send', 'slow-send', {
      spec: { appRef: { name: 'shop' }, contents: { en: 'Slow one' }, included_segments: ['Pro'], throttle_rate_per_minute: 1500 },
    }));
    const started = await waitFor('the first chunk', async () => {
      const o = await sendObj('slow-send');
      return (o.status?.sent ?? 0) >= 500 ? o : undefined;
    }, 60_000, 250);
    const chunksWhere = async (db: Queryable, condition: string) =>
      (await db.query(`SELECT chunk FROM send_chunks WHERE send_id = $1 AND ${condition} ORDER BY chunk`, [started.status.id])).rows.map((r) => r.chunk as number);
    const startedByPause = await inTransaction(env.pool, async (db) => {
      await db.query('SELECT 1 FROM send_chunks WHERE send_id = $1 FOR UPDATE', [started.status.id]);
      ok(await kube.kubectl(['patch', 'app', 'shop', '--type=merge', '-p', '{"spec":{"billing":{"invoiceOverdue":true}}}']));
      await waitFor('the controller to record the pause', async () =>
        (await env.pool.query('SELECT invoice_overdue FROM apps WHERE id = $1', [appId])).rows[0].invoice_overdue === true);
      return chunksWhere(db, 'claims > 0');
    });
    expect(startedByPause.length, 'chunks started before the pause (of 3)').to.be.below(3);
    const done = await final('slow-send');
    expect(done.status.status).to.equal('approved');
    const delivered = await chunksWhere(env.pool, `state = 'done'`);
    expect(startedByPause, 'every delivered chunk had started before the pause').to.include.members(delivered);
    expect(done.status.sent).to.be.at.least(started.status.sent).and.below(1200);
    expect(done.status.total).to.equal(1200);
    expect(done.status.remaining).to.equal(0);
    expect(done.status.processed).to.equal(done.status.sent + done.status.failed + done.status.skipped);
    const stats = await api.request('GET', `/api/v1/notifications/${done.status.id}`, { key });
    expect(stats.body).to.include({ status: 'approved', total_recipients: 1200, sent: done.status.sent, processed: done.status.processed, remaining: 0 });
    const row = ok(await kube.kubectl(['get', 'send', 'slow-send', '--no-headers']));
    expect(row).to.match(new RegExp(`^slow-send\\s+approved\\s+1200\\s+${done.status.sent}\\s+0\\s+0\\s`));
    console.log(`\n$ kubectl get sends -o wide\n${ok(await kube.kubectl(['get', 'sends', '-o', 'wide']))}`);

    // New sends are refused with the REST 402 while paused; a Send says so.
    await kube.apply(manifest('Send', 'while-paused', { spec: { appRef: { name: 'shop' }, contents: { en: 'x' }, included_segments: ['Pro'] } }));
    const refused = await waitFor('Accepted=False', async () => {
      const o = await sendObj('while-paused');
      return condition(o, 'Accepted')?.status === 'False' ? o : undefined;
    });
    expect(condition(refused, 'Accepted')).to.include({ reason: 'PaymentRequired' });
    ok(await kube.kubectl(['patch', 'app', 'shop', '--type=merge', '-p', '{"spec":{"billing":{"invoiceOverdue":false}}}']));
  });

  it('deletes finished Send objects older than the retention; the sends stay in PostgreSQL', async () => {
    const before = controller.sends.informer.list().length;
    expect(before).to.be.at.least(4);
    const deleted = await sweepSends({ custom: controller.clients.custom, logger: testLogger(), list: () => controller.sends.informer.list() }, 1);
    expect(deleted).to.equal(before); // all are finished or refused
    await waitFor('the objects to go', async () => ok(await kube.kubectl(['get', 'sends', '-o', 'name'])).trim() === '', 10_000);
    const rows = await env.pool.query('SELECT count(*)::int AS n FROM sends');
    expect(rows.rows[0].n).to.be.at.least(4);
  });
});
