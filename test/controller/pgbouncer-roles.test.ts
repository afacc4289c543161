// Herald's three roles as processes the way a production fleet runs them (issue 37): behind the
// machine's PgBouncer in transaction mode (test/env/services.ts: 4 server connections for every
// client of the database) with HERALD_DATABASE_SESSION_URL naming PostgreSQL itself, and behind
// an egress proxy (HTTPS_PROXY) that alone resolves the gateway's name. The controller applies an
// App from the real kube-apiserver, the api accepts sends, the sender delivers them, whichever of
// the sender and the controller leads the scheduler fires a scheduled send, and a Send object goes
// out, all to the simulator; PgBouncer saw each role's clients and no more of the api's than its
// setting allows, the scheduler's lock is on a connection of its own, and every role shows the
// proxy's gauge.
import { expect } from 'chai';
import pg from 'pg';
import { useTestEnv } from '../env/index.js';
import { PGBOUNCER_PORT } from '../env/services.js';
import { makeP8 } from '../support/apps.js';
import { startHerald, type HeraldProcess } from '../support/processes.js';
import { apiClient, freePort, metric, startRole, type Proc } from '../e2e/harness.js';
import { ConnectProxy } from '../support/connect-proxy.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import { addDevices } from '../delivery/fixtures.js';
import { SCHEDULER_LOCK } from '../../core/send/scheduler.js';
import { condition, manifest, useControlPlane, waitFor } from './harness.js';

const bouncer = (database: string) => `postgres://postgres@127.0.0.1:${PGBOUNCER_PORT}/${database}`;

/** PgBouncer's admin console, SHOW <what>, rows of this database only. */
async function bouncerShow(what: 'CLIENTS' | 'SERVERS', database: string): Promise<Array<Record<string, string>>> {
  const admin = new pg.Client({ connectionString: bouncer('pgbouncer') });
  await admin.connect();
  try {
    return (await admin.query(`SHOW ${what}`)).rows.filter((r) => r.database === database);
  } finally {
    await admin.end();
  }
}

describe('the roles behind PgBouncer in transaction mode and an egress proxy (real kube-apiserver)', function () {
  this.timeout(240_000);
  const env = useTestEnv();
  const kube = useControlPlane();
  let sim: ApnsSim;
  let proxy: ConnectProxy | undefined;
  let controller: HeraldProcess | undefined;
  let api: Proc | undefined;
  let sender: Proc | undefined;

  after(async () => {
    await Promise.all([controller?.stop('SIGKILL'), api?.kill('SIGKILL'), sender?.kill('SIGKILL')]);
    await Promise.all([sim?.close(), proxy?.down()]);
  });

  it('apply an App, send by REST, by schedule and as a Send object: each delivered', async () => {
    sim = await startApnsSim({});
    proxy = await ConnectProxy.start({ hosts: { 'apns.herald.test': '127.0.0.1' } });
    const childEnv = env.childEnv({
      HERALD_DATABASE_URL: bouncer(env.db.name),
      HERALD_DATABASE_SESSION_URL: env.databaseUrl,
      HERALD_API_DATABASE_CONNECTIONS: '3',
      HTTPS_PROXY: proxy.url(),
      HERALD_APNS_URL: `https://apns.herald.test:${sim.port}`,
      HERALD_APNS_CA_FILE: sim.caFile,
    });
    const controllerMetrics = await freePort();
    controller = await startHerald('controller', { ...childEnv, HERALD_KUBECONFIG: kube.cp.kubeconfig, HERALD_POD_NAME: 'controller-pgbouncer', HERALD_LEASE_NAMESPACE: 'default', HERALD_METRICS_PORT: String(controllerMetrics) }, { waitForPort: false });
    await waitFor('the controller ready', async () => controller!.output().includes('controller ready'), 60_000);
    [api, sender] = await Promise.all([startRole('api', childEnv), startRole('sender', childEnv)]);

    await kube.apply(manifest('Secret', 'pooled-apns', { type: 'Opaque', stringData: { 'key.p8': makeP8() } }));
    await kube.apply(manifest('App', 'pooled', { spec: { bundleId: 'dev.herald.pooled', credentials: { type: 'token', secretRef: { name: 'pooled-apns' }, keyId: 'ABC123DEFG', teamId: 'TEAM123456' }, apiKeys: [{ name: 'backend' }] } }));
    const app = await waitFor('the App Ready with its key', async () => {
      const o = await kube.getJson('app', 'pooled');
      return condition(o, 'Ready')?.status === 'True' && o.status?.keys?.length === 1 ? o : undefined;
    }, 60_000);
    const appId = app.status.appId as string;
    const key = Buffer.from((await kube.getJson('secret', app.status.keys[0].secretName)).data.apiKey, 'base64').toString();
    await addDevices(env.pool, appId, 30, { externalIdPrefix: 'u-' });
    const ids = (await env.pool.query('SELECT id FROM subscriptions WHERE app_id = $1 ORDER BY token', [appId])).rows.map((r) => r.id as string);
    const client = apiClient(api.port, key);
    // A send that never ends says why: the sender's last lines ride along in the failure.
    const final = (id: number) =>
      waitFor(`send ${id} final`, async () => {
        const { status, body } = await client.get(`/api/v1/notifications/${id}`);
        return status === 200 && (body.status === 'approved' || body.status === 'draft') ? body : undefined;
      }, 60_000).catch((error: Error) => {
        throw new Error(`${error.message}\nsender:\n${sender!.output().slice(-4000)}`);
      });

    const now = await client.post('/api/v1/notifications', { app_id: appId, include_subscription_ids: ids.slice(0, 10), contents: { en: 'now' } });
    expect(now.status, JSON.stringify(now.body)).to.equal(200);
    const segment = await client.post('/api/v1/notifications', { app_id: appId, included_segments: ['Subscribed Users'], contents: { en: 'all' } });
    expect(segment.status, JSON.stringify(segment.body)).to.equal(202);
    const later = await client.post('/api/v1/notifications', { app_id: appId, include_subscription_ids: ids.slice(10, 20), contents: { en: 'later' }, send_after: new Date(Date.now() + 3_000).toISOString() });
    expect(later.body.status, JSON.stringify(later.body)).to.equal('scheduled');
    await kube.apply(manifest('Send', 'pooled-send', { spec: { appRef: { name: 'pooled' }, contents: { en: 'object' }, include_external_ids: ['u-1', 'u-2'] } }));

    expect(await final(now.body.id)).to.include({ status: 'approved', sent: 10, failed: 0 });
    expect(await final(segment.body.id)).to.include({ status: 'approved', sent: 30, failed: 0 });
    expect(await final(later.body.id), 'fired by the scheduler').to.include({ status: 'approved', sent: 10, failed: 0 });
    const object = await waitFor('the Send object delivered and mirrored', async () => {
      const o = await kube.getJson('send', 'pooled-send');
      return o.status?.status === 'approved' ? o : undefined;
    }, 60_000);
    expect(object.status).to.include({ sent: 2, failed: 0 });
    expect(sim.stats().byStatus['200']).to.equal(10 + 30 + 10 + 2);
    expect(proxy.opened('apns.herald.test'), 'the pushes went through the egress proxy').to.be.greaterThan(0);
    for (const p of [api, sender, { port: controllerMetrics } as Proc]) expect(await metric(p, 'herald_egress_proxy_up')).to.equal(1);

    // The api's pool is its setting (3), not the default 20, under 40 reads at once.
    await Promise.all(Array.from({ length: 40 }, () => client.get(`/api/v1/notifications/${segment.body.id}`)));
    const apiClients = (await bouncerShow('CLIENTS', env.db.name)).filter((c) => c.application_name === 'herald-api').length;
    expect(apiClients).to.be.within(1, 3);

    // Every role went through PgBouncer; the leadership lock did not.
    const roles = new Set((await bouncerShow('CLIENTS', env.db.name)).map((c) => c.application_name));
    expect([...roles]).to.include.members(['herald-api', 'herald-sender', 'herald-controller']);
    const lockHolders = (await env.pool.query(`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`, [SCHEDULER_LOCK])).rows.map((r) => Number(r.pid));
    expect(lockHolders).to.have.length(1);
    expect((await bouncerShow('SERVERS', env.db.name)).map((s) => Number(s.remote_pid))).to.not.include(lockHolders[0]);
    for (const p of [api, sender]) expect(p.output()).to.not.match(/prepared statement|unsupported startup parameter/);
    expect(controller.output()).to.not.match(/prepared statement|unsupported startup parameter/);
  });
});
