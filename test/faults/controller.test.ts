// The controller through the dependency faults, on the Kubernetes tier: two `herald controller`
// replicas on one Lease, a sender and the simulator, on a private PostgreSQL and NATS. A Send
// object is applied during each fault in turn — PostgreSQL stopped for 20 s, NATS restarted, the
// leader kill -9'd — and every Send must still be accepted and reach its final state with exact
// counts and nothing failed; no process exits but the killed one. Public behaviour only: Send
// objects, the Lease, the simulator's per-device counters, exit codes.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createPool } from '../../core/store/db.js';
import { startApnsSim, generateApnsKeyPair, randomAppleId, type ApnsSim } from '../../apns-sim/index.js';
import { addDevices } from '../delivery/fixtures.js';
import { freePort, PrivateNats, sleep, startRole, type Proc } from '../e2e/harness.js';
import { startHerald, type HeraldProcess } from '../support/processes.js';
import { condition, manifest, ok, useControlPlane, waitFor } from '../controller/harness.js';
import { REDIS_URL } from '../env/index.js';
import { PrivatePostgres } from './servers.js';

const DEVICES = 300;
const PG_DOWN_MS = 20_000;

describe('faults: the controller through outages and a leader kill -9', function () {
  this.timeout(600_000);
  const kube = useControlPlane();
  let pg: PrivatePostgres;
  let nats: PrivateNats;
  let sim: ApnsSim;
  let tokens: string[];
  const controllers = new Map<string, HeraldProcess>();
  const others: Proc[] = [];
  const killed = new Set<string>();
  const sends: string[] = [];
  const apnsKey = generateApnsKeyPair();
  const teamId = randomAppleId();

  const childEnv = (extra: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/root',
    HERALD_DATABASE_URL: pg.url(),
    HERALD_NATS_URL: nats.url,
    HERALD_REDIS_URL: REDIS_URL,
    HERALD_REDIS_PREFIX: `tf${randomBytes(3).toString('hex')}:`,
    HERALD_APNS_URL: sim.url,
    HERALD_APNS_CA_FILE: sim.caFile,
    HERALD_SENDER_LEASE_MS: '5000',
    HERALD_LOG_LEVEL: process.env.HERALD_TEST_LOG_LEVEL ?? 'warn',
    ...extra,
  });

  const startController = async (identity: string) => {
    const proc = await startHerald('controller', childEnv({
      HERALD_KUBECONFIG: kube.cp.kubeconfig,
      HERALD_POD_NAME: identity,
      HERALD_LEASE_NAMESPACE: 'default',
      HERALD_LEASE_DURATION_SECONDS: '4',
      HERALD_METRICS_PORT: '0',
      HERALD_MIRROR_SENDS: 'none',
    }), { waitForPort: false });
    controllers.set(identity, proc);
    await waitFor(`${identity} ready`, async () => proc.output().includes('controller ready'), 60_000);
  };
  const holder = async () => ok(await kube.kubectl(['get', 'lease', 'herald-controller', '-o', 'jsonpath={.spec.holderIdentity}'])).trim();

  before(async function () {
    this.timeout(180_000);
    [pg, nats] = await Promise.all([PrivatePostgres.start(), PrivateNats.start()]);
    sim = await startApnsSim({ keys: [{ keyId: apnsKey.keyId, teamId, publicKey: apnsKey.publicKeyPem }], maxDeliveries: 0 });
    const migrate = spawn(process.execPath, ['bin/herald.js', 'migrate'], { env: childEnv(), stdio: 'ignore' });
    expect(await new Promise((r) => migrate.on('exit', r)), 'herald migrate').to.equal(0);
    await Promise.all([startController('controller-a'), startController('controller-b')]);
    others.push(await startRole('sender', childEnv()));
    await kube.apply(manifest('Secret', 'faults-apns', { type: 'Opaque', stringData: { 'key.p8': apnsKey.privateKeyP8 } }));
    await kube.apply(manifest('App', 'faults', {
      spec: { bundleId: 'dev.herald.faults', credentials: { type: 'token', secretRef: { name: 'faults-apns' }, keyId: apnsKey.keyId, teamId } },
    }));
    const app = await waitFor('App Ready', async () => {
      const o = await kube.getJson('app', 'faults');
      return condition(o, 'Ready')?.status === 'True' ? o : undefined;
    }, 60_000);
    const pool = createPool(pg.url(), { max: 1 });
    tokens = await addDevices(pool, app.status.appId, DEVICES, { prefix: 'c' });
    await pool.end();
  });

  after(async function () {
    this.timeout(60_000);
    await Promise.all([...controllers.values()].map((p) => p.stop('SIGKILL')));
    await Promise.all(others.map((p) => p.kill('SIGKILL')));
    await sim?.close();
    await Promise.all([pg?.close(), nats?.close()]);
  });

  async function applySend(name: string): Promise<void> {
    await kube.apply(manifest('Send', name, { spec: { appRef: { name: 'faults' }, contents: { en: name }, included_segments: ['All'] } }));
    sends.push(name);
  }

  async function final(name: string): Promise<any> {
    return waitFor(`Send ${name} final`, async () => {
      const s = (await kube.getJson('send', name)).status;
      return s && (s.status === 'approved' || s.status === 'draft') && s.remaining === 0 ? s : undefined;
    }, 180_000, 250);
  }

  it('refuses to start with one line and exit 2 when PostgreSQL is unreachable (the cluster is)', async () => {
    const proc = await startHerald('controller', childEnv({
      HERALD_KUBECONFIG: kube.cp.kubeconfig,
      HERALD_DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/herald`,
      HERALD_METRICS_PORT: '0',
    }), { waitForPort: false });
    expect(await proc.exited, proc.output()).to.equal(2);
    const errors = proc.output().split('\n').filter((l) => l.startsWith('herald'));
    expect(errors, proc.output()).to.have.length(1);
    expect(errors[0]).to.match(/HERALD_DATABASE_URL: cannot reach PostgreSQL.*start PostgreSQL/);
    expect(proc.output()).not.to.match(/\n[ \t]+at /);
  });

  it('every Send applied during a fault is accepted and delivered exactly; only the killed leader exits', async () => {
    await applySend('before-faults');
    await final('before-faults');

    // PostgreSQL stopped for 20 s with a Send applied meanwhile.
    await pg.down();
    await applySend('during-postgres');
    await sleep(PG_DOWN_MS); // the outage's length is the fault itself
    await pg.up();
    await final('during-postgres');

    // NATS restarted with a Send applied meanwhile.
    await nats.down();
    await applySend('during-nats');
    await nats.up();
    await final('during-nats');

    // The leader kill -9'd with a Send applied at once; the standby takes over.
    const leader = await holder();
    const standby = leader === 'controller-a' ? 'controller-b' : 'controller-a';
    killed.add(leader);
    expect(await controllers.get(leader)!.stop('SIGKILL')).to.equal(null);
    await applySend('after-leader-killed');
    await waitFor('the standby to lead', async () => (await holder()) === standby || undefined, 60_000);
    await final('after-leader-killed');

    for (const name of sends) {
      const s = await final(name);
      expect(s, name).to.include({ status: 'approved', total: DEVICES, sent: DEVICES, failed: 0, skipped: 0 });
    }
    for (const tk of tokens) expect(sim.attempts(tk), tk).to.be.at.least(sends.length);
    for (const [identity, p] of controllers) {
      if (!killed.has(identity)) expect(p.child.exitCode, `${identity} exited:\n${p.output().slice(-3000)}`).to.equal(null);
    }
    for (const p of others) expect(p.child.exitCode, p.output().slice(-3000)).to.equal(null);
    // The survivors stop cleanly.
    expect(await controllers.get(standby)!.stop('SIGTERM')).to.equal(0);
    expect(await others[0].kill('SIGTERM')).to.equal(0);
  });
});
