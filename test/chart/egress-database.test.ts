// The chart's part of issue 37: the egress proxy (proxy.https in the connections Secret, never
// the ConfigMap; proxy.noProxy; the NetworkPolicy reaching the proxy instead of Apple), PgBouncer
// (database.sessionUrl to every role and the migrate hook; its port in the NetworkPolicy) and each
// role's database connections. The schema's refusals are in values-schema.test.ts.
import { join } from 'node:path';
import { expect } from 'chai';
import { chartDir, find, valuesDir, type Manifest, useHelm } from './helm.js';
import { loadConfig } from '../../core/config.js';
import { senderPoolSize } from '../../sender/sender.js';

const minimal = join(valuesDir, 'minimal.yaml');
const NS = 'herald';
const ROLES = ['herald-api', 'herald-sender', 'herald-controller'];

const configMap = (ms: Manifest[]) => find(ms, 'ConfigMap', 'herald-config').data ?? {};
const envOf = (ms: Manifest[], name: string): Map<string, any> => {
  const m = ms.find((x) => x.metadata.name === name && (x.kind === 'Deployment' || x.kind === 'Job'))!;
  return new Map((m.spec.template.spec.containers[0].env ?? []).map((e: any) => [e.name, e]));
};
/** Every egress port of a role's NetworkPolicy, with where it may go ('any' without `to`). */
const egressOf = (ms: Manifest[], role: string): Array<{ port: number; to: string }> =>
  find(ms, 'NetworkPolicy', `herald-${role}`).spec.egress.flatMap((rule: any) =>
    (rule.ports ?? []).map((p: any) => ({ port: p.port, to: rule.to ? rule.to.map((t: any) => t.ipBlock?.cidr).join(',') : 'any' })));

describe('charts/herald: the egress proxy, PgBouncer and the database connections (issue 37)', function () {
  const helm = useHelm();
  const render = (...set: string[]) => helm().template(['-n', NS, '-f', minimal, ...set.flatMap((s) => ['--set', s])]);

  it('sets none of it by default', async () => {
    const ms = await render();
    for (const name of ROLES) for (const v of ['HTTPS_PROXY', 'HERALD_DATABASE_SESSION_URL']) expect(envOf(ms, name).has(v), `${name} ${v}`).to.equal(false);
    expect(configMap(ms)).to.not.have.any.keys('NO_PROXY', 'HERALD_API_DATABASE_CONNECTIONS', 'HERALD_SENDER_DATABASE_CONNECTIONS', 'HERALD_CONTROLLER_DATABASE_CONNECTIONS');
  });

  it('gives every role HTTPS_PROXY from the connections Secret (it may carry a password), NO_PROXY in the ConfigMap', async () => {
    const ms = await render('proxy.https=http://herald:pw@proxy.egress.svc:3128', 'proxy.noProxy={.svc,10.0.0.0/8,hooks.internal:8443}');
    expect(find(ms, 'Secret', 'herald-connections').stringData?.HTTPS_PROXY).to.equal('http://herald:pw@proxy.egress.svc:3128');
    for (const name of ROLES) expect(envOf(ms, name).get('HTTPS_PROXY').valueFrom.secretKeyRef, name).to.deep.equal({ name: 'herald-connections', key: 'HTTPS_PROXY' });
    expect(configMap(ms).NO_PROXY).to.equal('.svc,10.0.0.0/8,hooks.internal:8443');
    expect(JSON.stringify(configMap(ms))).to.not.include('pw@');
    // From a Secret of yours, which wins over the value.
    const own = await render('proxy.https=http://a:3128', 'proxy.existingSecret.name=egress', 'proxy.existingSecret.key=url');
    for (const name of ROLES) expect(envOf(own, name).get('HTTPS_PROXY').valueFrom.secretKeyRef).to.deep.equal({ name: 'egress', key: 'url' });
    expect(find(own, 'Secret', 'herald-connections').stringData).to.not.have.property('HTTPS_PROXY');
  });

  it('gives every role and the migrate hook HERALD_DATABASE_SESSION_URL behind PgBouncer', async () => {
    const ms = await render('database.url=postgres://herald:pw@pgbouncer:6432/herald', 'database.sessionUrl=postgres://herald:pw@postgresql:5432/herald');
    expect(find(ms, 'Secret', 'herald-connections').stringData?.HERALD_DATABASE_SESSION_URL).to.equal('postgres://herald:pw@postgresql:5432/herald');
    for (const name of ROLES) expect(envOf(ms, name).get('HERALD_DATABASE_SESSION_URL').valueFrom.secretKeyRef, name).to.deep.equal({ name: 'herald-connections', key: 'HERALD_DATABASE_SESSION_URL' });
    // The hook runs before the release's Secret exists: its own copy, as for the database URL.
    expect(find(ms, 'Secret', 'herald-migrate').stringData).to.deep.equal({ HERALD_DATABASE_URL: 'postgres://herald:pw@pgbouncer:6432/herald', HERALD_DATABASE_SESSION_URL: 'postgres://herald:pw@postgresql:5432/herald' });
    expect(envOf(ms, 'herald-migrate').get('HERALD_DATABASE_SESSION_URL').valueFrom.secretKeyRef).to.deep.equal({ name: 'herald-migrate', key: 'HERALD_DATABASE_SESSION_URL' });
    // Both from Secrets of yours: no hook Secret at all.
    const own = await render('database.existingSecret.name=pg-pooled', 'database.sessionExistingSecret.name=pg-direct', 'database.sessionExistingSecret.key=uri');
    expect(own.some((m) => m.kind === 'Secret' && m.metadata.name === 'herald-migrate')).to.equal(false);
    for (const name of [...ROLES, 'herald-migrate']) expect(envOf(own, name).get('HERALD_DATABASE_SESSION_URL').valueFrom.secretKeyRef, name).to.deep.equal({ name: 'pg-direct', key: 'uri' });
  });

  it("maps each role's database connections when set", async () => {
    const ms = await render('api.databaseConnections=6', 'sender.databaseConnections=10', 'controller.databaseConnections=3');
    expect(configMap(ms)).to.include({ HERALD_API_DATABASE_CONNECTIONS: '6', HERALD_SENDER_DATABASE_CONNECTIONS: '10', HERALD_CONTROLLER_DATABASE_CONNECTIONS: '3' });
  });

  it("values-production.yaml fits PostgreSQL's default max_connections (100) with a quarter to spare, the senders at their autoscaler's maximum and a rollout's surge", async () => {
    const ms = await helm().template(['-n', NS, '-f', join(chartDir, 'values-production.yaml')]);
    // The processes' own defaults, read from the code, unless the ConfigMap sets a pool.
    const cm = configMap(ms);
    const defaults = loadConfig({});
    const pool = { api: Number(cm.HERALD_API_DATABASE_CONNECTIONS ?? defaults.apiDatabaseConnections), controller: Number(cm.HERALD_CONTROLLER_DATABASE_CONNECTIONS ?? defaults.controllerDatabaseConnections), sender: Number(cm.HERALD_SENDER_DATABASE_CONNECTIONS ?? senderPoolSize(Number(cm.HERALD_SENDER_CONCURRENCY), Number(cm.HERALD_SENDER_LIVE_ACTIVITY_SLOTS))) };
    const senders = find(ms, 'HorizontalPodAutoscaler', 'herald-sender').spec.maxReplicas as number;
    const surge = (n: number) => n + Math.ceil(n / 4); // RollingUpdate's default maxSurge, 25 %
    const apis = find(ms, 'Deployment', 'herald-api').spec.replicas + 1; // its maxSurge: 1
    const controllers = surge(find(ms, 'Deployment', 'herald-controller').spec.replicas);
    expect(envOf(ms, 'herald-sender').has('HERALD_DATABASE_SESSION_URL'), 'the production values assume PgBouncer').to.equal(true);
    // docs/install.md "Database connections": through PgBouncer, PostgreSQL sees its server pool
    // (default_pool_size 20 + reserve_pool_size 5) and the sessions: one per sender, the
    // controller leader's, the migrate hook's two (its database check, then the migrations).
    const throughPgbouncer = 25 + surge(senders) + 1 + 2;
    const direct = apis * pool.api + surge(senders) * (pool.sender + 1) + controllers * pool.controller + 1 + 2;
    console.log(`      values-production.yaml at ${senders} senders: ${throughPgbouncer} PostgreSQL connections through PgBouncer (${direct} without it; PgBouncer clients ${apis * pool.api + surge(senders) * pool.sender + controllers * pool.controller})`);
    expect(throughPgbouncer).to.be.at.most(75);
    expect(direct, 'the same values without PgBouncer would not fit: the reason it is assumed').to.be.greaterThan(100);
  });

  describe('the NetworkPolicy', () => {
    const vendorPorts = [443, 2195, 2196, 2197, 2199];

    it('without a proxy: Apple on its ports (and Google on 443: test/chart/egress-fcm.test.ts); no PgBouncer port', async () => {
      const ms = await render('networkPolicy.enabled=true');
      expect(egressOf(ms, 'sender').filter((e) => vendorPorts.includes(e.port)).map((e) => e.to)).to.deep.equal([...Array(5).fill('17.0.0.0/8'), '0.0.0.0/0']);
      expect(egressOf(ms, 'sender').map((e) => e.port)).to.not.include(6432);
    });

    it('with a proxy: the proxy instead of Apple, on the port of proxy.https (80 without one) or proxyPort, where proxyCIDRs say', async () => {
      for (const [set, port] of [[['proxy.https=http://u:p@proxy.egress.svc:3128'], 3128], [['proxy.https=proxy.egress.svc'], 80], [['proxy.existingSecret.name=egress', 'networkPolicy.egress.proxyPort=8080'], 8080]] as const) {
        const ms = await render('networkPolicy.enabled=true', 'networkPolicy.egress.proxyCIDRs={10.9.0.0/16}', ...set);
        for (const role of ['api', 'sender', 'controller']) {
          const egress = egressOf(ms, role);
          expect(egress.filter((e) => e.to.includes('17.0.0.0/8')), `${role}: no way to Apple (networkPolicy.egress.apnsCIDRs) but the proxy`).to.deep.equal([]);
          expect(egress.filter((e) => e.port === port), `${role} ${set}`).to.deep.equal([{ port, to: '10.9.0.0/16' }]);
        }
      }
    });

    it('refuses a proxy from a Secret without proxyPort (the chart cannot read the port)', async () => {
      const result = await helm().run(['template', 'herald', chartDir, '-f', minimal, '--set', 'networkPolicy.enabled=true', '--set', 'proxy.existingSecret.name=egress']);
      expect(result.code).to.not.equal(0);
      expect(result.stderr).to.include('networkPolicy.egress.proxyPort is needed with proxy.existingSecret');
    });

    it("behind PgBouncer: PgBouncer's port beside PostgreSQL's", async () => {
      const ms = await render('networkPolicy.enabled=true', 'database.sessionUrl=postgres://h@pg:5432/herald', 'networkPolicy.egress.pgbouncerPort=6543');
      for (const role of ['api', 'sender', 'controller']) expect(egressOf(ms, role).map((e) => e.port), role).to.include.members([5432, 6543]);
    });
  });
});
