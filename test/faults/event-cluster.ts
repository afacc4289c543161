// A private Herald for the event-stream fault tests (issue 28): its own PostgreSQL, Redis and
// NATS (so they can be stopped and restarted), the APNs simulator, one api and sender processes
// started as in production, and apps whose event destination is a real receiver in the test
// (test/delivery/event-receiver.ts: every request verified with `standardwebhooks`) answering as
// the test scripts it. Sends go through the api; what is asserted is what the receiver took.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createPool, type Pool } from '../../core/store/db.js';
import { createKey } from '../../core/apps/keys.js';
import { storeDestinations } from '../../core/events/destinations.js';
import { generateApnsKeyPair, randomAppleId, startApnsSim, type ApnsSim, type SimRule } from '../../apns-sim/index.js';
import { addDevices, createTestApp } from '../delivery/fixtures.js';
import { startReceiver, whsec, type Receiver } from '../delivery/event-receiver.js';
import { apiClient, PrivateNats, startRole, type Proc } from '../e2e/harness.js';
import { waitFor } from '../support/wait.js';
import { PrivatePostgres, PrivateRedis } from './servers.js';
import type { ExpectedSend } from './event-sums.js';

/** How the receiver answers a request: a status, 'hang' (never), 'swallow' (takes it, the answer never comes). */
export type Answer = number | 'hang' | 'swallow';

/** Devices answered after this delay (token prefix SLOW): a send of them is mid-flight for that long. */
export const SLOW = 'de1a';
export const SLOW_MS = 4_000;
/** Devices Apple refuses for good (410): a failed and an unsubscribed event each. */
const GONE = 'dead';

export interface ClusterApp {
  appId: string;
  apiKey: string;
  receiver: Receiver;
  /** Answers for the receiver's next requests, in order; then 200. */
  script: Answer[];
}

/** One group of devices of an app, sent to as one send (tag `phase`). */
export interface Phase {
  name: string;
  sent: string[];
  gone: string[];
  tokens: string[];
}

export class EventCluster {
  readonly senders: Proc[] = [];
  api!: Proc;
  private constructor(readonly pg: PrivatePostgres, readonly redis: PrivateRedis, readonly nats: PrivateNats, public sim: ApnsSim, readonly apps: ClusterApp[]) {}

  /** `phases`: per app, the device groups to make (name, devices Apple accepts; 2 it refuses are added). */
  static async start(apps: Array<{ name: string; phases: Array<{ name: string; devices: number; slow?: boolean }>; stream?: boolean }>): Promise<{ cluster: EventCluster; phases: Map<string, Phase> }> {
    const [pg, redis, nats] = await Promise.all([PrivatePostgres.start(), PrivateRedis.start(), PrivateNats.start()]);
    const key = generateApnsKeyPair();
    const teamId = randomAppleId();
    const rules: SimRule[] = [{ prefix: GONE, status: 410 }, { prefix: SLOW, delayMs: SLOW_MS }];
    const sim = await startApnsSim({ keys: [{ keyId: key.keyId, teamId, publicKey: key.publicKeyPem }], rules, maxDeliveries: 0 });
    const cluster = new EventCluster(pg, redis, nats, sim, []);
    const phases = new Map<string, Phase>();
    try {
      // `herald migrate` creates the database and its schema, as on a first install.
      const migrate = spawn(process.execPath, ['bin/herald.js', 'migrate'], { env: cluster.childEnv(), stdio: 'ignore' });
      expect(await new Promise((r) => migrate.on('exit', r)), 'herald migrate').to.equal(0);
      await cluster.withPool(async (pool) => {
        for (const [a, spec] of apps.entries()) {
          const t = await createTestApp(pool, spec.name, { key, teamId });
          const secret = whsec();
          const app: ClusterApp = { appId: t.app.id, apiKey: (await createKey(pool, t.app.id, { name: 'faults' })).key, receiver: undefined as unknown as Receiver, script: [] };
          app.receiver = await startReceiver(secret, () => app.script.shift() ?? 200);
          await storeDestinations(pool, t.app.id, [{ name: 'backend', url: app.receiver.url, secretRef: { name: 'unused', key: 'unused' }, secret }], { stream: spec.stream });
          cluster.apps.push(app);
          for (const [p, phase] of spec.phases.entries()) {
            const prefix = `${phase.slow ? SLOW : ''}${a}${p}`;
            const tokens = [...(await addDevices(pool, t.app.id, phase.devices, { prefix, tags: { phase: phase.name } })), ...(await addDevices(pool, t.app.id, 2, { prefix: `${GONE}${a}${p}`, tags: { phase: phase.name } }))];
            const ids = async (pre: string) => (await pool.query<{ id: string }>('SELECT id::text FROM subscriptions WHERE app_id = $1 AND token LIKE $2', [t.app.id, `${pre}%`])).rows.map((r) => r.id);
            phases.set(phase.name, { name: phase.name, sent: await ids(prefix), gone: await ids(`${GONE}${a}${p}`), tokens });
          }
        }
      });
      cluster.api = await startRole('api', cluster.childEnv());
      await cluster.startSender();
      return { cluster, phases };
    } catch (error) {
      await cluster.close();
      throw error;
    }
  }

  childEnv(): Record<string, string> {
    return {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      HERALD_DATABASE_URL: this.pg.url(),
      HERALD_REDIS_URL: this.redis.url,
      HERALD_NATS_URL: this.nats.url,
      HERALD_APNS_URL: this.sim.url,
      HERALD_APNS_CA_FILE: this.sim.caFile,
      // A dead sender's chunks are claimable again after this (SLOW_MS of delivery is renewed meanwhile).
      HERALD_SENDER_LEASE_MS: '3000',
      HERALD_SENDER_CONCURRENCY: '2',
      HERALD_SENDER_RETRY_BASE_MS: '50',
      HERALD_EVENT_HTTP_HOSTS: '127.0.0.1',
      HERALD_LOG_LEVEL: process.env.HERALD_TEST_LOG_LEVEL ?? 'warn',
    };
  }

  async startSender(): Promise<Proc> {
    const sender = await startRole('sender', this.childEnv());
    this.senders.push(sender);
    return sender;
  }

  /** A pool for one step only: the test's connections must not outlive the faults. */
  async withPool<T>(work: (pool: Pool) => Promise<T>): Promise<T> {
    const pool = createPool(this.pg.url(), { max: 2 });
    try {
      return await work(pool);
    } finally {
      await pool.end();
    }
  }

  /** A send to one phase's devices through the api; its id. */
  async send(app: ClusterApp, phase: Phase): Promise<number> {
    const res = await apiClient(this.api.port, app.apiKey).post('/api/v1/notifications', {
      app_id: app.appId,
      filters: [{ field: 'tag', key: 'phase', relation: '=', value: phase.name }],
      contents: { en: phase.name },
    });
    expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 202]);
    return res.body.id as number;
  }

  /** The send's counts once it is final, as the api answers them. */
  async final(app: ClusterApp, id: number, timeoutMs = 60_000): Promise<ExpectedSend['stats'] & { status: string }> {
    return waitFor(`send ${id} final`, async () => {
      const res = await apiClient(this.api.port, app.apiKey).get(`/api/v1/notifications/${id}`);
      return res.status === 200 && (res.body.status === 'approved' || res.body.status === 'draft') ? res.body : undefined;
    }, timeoutMs);
  }

  /** Waits until the app's receiver took the send's finished event. */
  async finishedEvent(app: ClusterApp, id: number, timeoutMs = 60_000): Promise<void> {
    await waitFor(`the finished event of send ${id}`, () => app.receiver.accepted.some((d) => d.events.some((e) => e.event.kind === 'notification.finished' && e.message?.id === String(id))), timeoutMs);
  }

  /** Whether the receiver was sent (taken or not) an event of this send. */
  requested(app: ClusterApp, id: number): boolean {
    return app.receiver.requests.some((d) => d.events.some((e) => e.message?.id === String(id)));
  }

  /** Every Herald process still running: none may have died but those the test killed. */
  expectAlive(killed: Set<Proc>): void {
    for (const p of [this.api, ...this.senders].filter((x) => !killed.has(x))) {
      expect(p.child.exitCode, `a process exited:\n${p.output().slice(-3000)}`).to.equal(null);
      expect(p.child.signalCode, `a process was killed:\n${p.output().slice(-3000)}`).to.equal(null);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.api, ...this.senders].filter(Boolean).map((p) => p.kill('SIGKILL')));
    for (const app of this.apps) await app.receiver?.close();
    await this.sim.close();
    await Promise.all([this.pg.close(), this.redis.close(), this.nats.close()]);
  }
}
