// Fault tests: kill -9 a sender in the middle of a send, and restart NATS in the middle of a
// send. The send still finishes, every device is reached at least once, the counts are exact.
// NATS here is a private nats-server (random port, temporary store) so restarting it disturbs no
// one else's tests.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { createKey } from '../../core/apps/keys.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import { addDevices, createTestApp, type TestApp } from '../delivery/fixtures.js';
import { apiClient, PrivateNats, startRole, type Proc } from './harness.js';
import type { Pool } from '../../core/store/db.js';
import { waitFor } from '../support/wait.js';

const DEVICES = 10_000;
const CONCURRENCY = 2;

const waitChunksDone = (pool: Pool, id: number, atLeast: number) =>
  waitFor(`send ${id}: ${atLeast} chunks done`, async () => ((await pool.query('SELECT chunks_done FROM sends WHERE id = $1', [id])).rows[0]?.chunks_done ?? 0) >= atLeast, 40_000, 20);

async function waitFinal(api: ReturnType<typeof apiClient>, id: number, timeoutMs: number): Promise<any> {
  const done = await waitFor(`send ${id} approved or draft`, async () => {
    const r = await api.get(`/api/v1/notifications/${id}`); // a read that fails (a process restarting) is "not yet"
    if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${JSON.stringify(r.body)}`);
    // processed + remaining is the total at every read: broken, the wait ends.
    if (r.body.processed + r.body.remaining !== r.body.total_recipients) return { broken: r.body };
    if (r.body.status === 'approved' || r.body.status === 'draft') return { final: r.body };
    throw new Error(`not finished: ${JSON.stringify(r.body)}`); // "not yet", and what a timeout reports
  }, timeoutMs, 100);
  if ('final' in done) return done.final;
  expect(done.broken.processed + done.broken.remaining).to.equal(done.broken.total_recipients);
}

describe('e2e faults: a sender killed, NATS restarted, mid-send', function () {
  this.timeout(300_000);
  const env = useTestEnv({ bus: false });
  let sim: ApnsSim;
  let t: TestApp;
  let nats: PrivateNats;
  let key: string;
  const procs: Proc[] = [];
  let tokens: string[];

  before(async () => {
    nats = await PrivateNats.start();
    t = await createTestApp(env.pool, 'faults');
    // Every answer takes 400 ms: a chunk takes about that long, the send several rounds.
    sim = await startApnsSim({ keys: [{ keyId: t.key.keyId, teamId: t.teamId, publicKey: t.key.publicKeyPem }], rules: [{ prefix: '', delayMs: 400 }], maxDeliveries: 0 });
    ({ key } = await createKey(env.pool, t.app.id, { name: 'faults' }));
    tokens = await addDevices(env.pool, t.app.id, DEVICES);
  });

  after(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await sim?.close();
    await nats?.close();
  });

  beforeEach(() => sim.reset());

  const childEnv = () =>
    env.childEnv({
      HERALD_NATS_URL: nats.url,
      HERALD_APNS_URL: sim.url,
      HERALD_APNS_CA_FILE: sim.caFile,
      HERALD_SENDER_LEASE_MS: '3000',
      HERALD_SENDER_CONCURRENCY: String(CONCURRENCY),
      HERALD_SENDER_RETRY_BASE_MS: '50',
    });

  function assertEveryDeviceOnce(final: any, label: string): number {
    expect(final, label).to.include({ status: 'approved', total_recipients: DEVICES, processed: DEVICES, remaining: 0, sent: DEVICES, failed: 0, skipped: 0 });
    const reached = tokens.filter((tk) => sim.attempts(tk) > 0).length;
    expect(reached, `${label}: devices reached`).to.equal(DEVICES);
    return sim.stats().requests - DEVICES;
  }

  it('kill -9 of a sender mid-send: the other finishes it; duplicates at most one chunk per job the dead sender held', async () => {
    const api = await startRole('api', childEnv());
    const s1 = await startRole('sender', childEnv());
    const s2 = await startRole('sender', childEnv());
    procs.push(api, s1, s2);
    const client = apiClient(api.port, key);
    const created = await client.post('/api/v1/notifications', { app_id: t.app.id, included_segments: ['All'], contents: { en: 'kill' } });
    expect(created.status).to.equal(202);
    await waitChunksDone(env.pool, created.body.id, 2);
    await s1.kill('SIGKILL');
    const final = await waitFinal(client, created.body.id, 120_000);
    const duplicates = assertEveryDeviceOnce(final, 'after kill -9');
    expect(duplicates).to.be.at.most(CONCURRENCY * 500);
    const reclaimed = await env.pool.query('SELECT count(*)::int AS n FROM send_chunks WHERE send_id = $1 AND claims > 1', [created.body.id]);
    console.log(`      kill -9: ${duplicates} duplicate deliveries, ${reclaimed.rows[0].n} chunk(s) taken over`);
    await Promise.all([api.kill(), s2.kill()]);
  });

  it('NATS restarted mid-send: the send finishes with exact counts', async () => {
    const api = await startRole('api', childEnv());
    const s1 = await startRole('sender', childEnv());
    const s2 = await startRole('sender', childEnv());
    procs.push(api, s1, s2);
    const client = apiClient(api.port, key);
    const created = await client.post('/api/v1/notifications', { app_id: t.app.id, included_segments: ['All'], contents: { en: 'nats' } });
    expect(created.status).to.equal(202);
    await waitChunksDone(env.pool, created.body.id, 2);
    await nats.down();
    // A send accepted while NATS is down: its created event cannot be published, so its outbox
    // row stays (were NATS up, the api would have published and deleted it before answering).
    const two = (await env.pool.query('SELECT id FROM subscriptions WHERE app_id = $1 ORDER BY seq LIMIT 2', [t.app.id])).rows.map((r) => r.id);
    const during = await client.post('/api/v1/notifications', { app_id: t.app.id, include_subscription_ids: two, contents: { en: 'during' } });
    expect(during.status, JSON.stringify(during.body)).to.equal(200);
    const createdEvent = `send-created-${during.body.id}`;
    const waiting = () => env.pool.query('SELECT 1 FROM outbox WHERE msg_id = $1', [createdEvent]).then((r) => r.rowCount === 1);
    expect(await waiting(), 'the created event of the send accepted during the outage is in the outbox').to.equal(true);
    // The outage lasts until the relays (every second, rows older than 5 s) have tried the row.
    await waitFor('the held event to be older than the relay\'s 5 s and a round', async () =>
      (await env.pool.query(`SELECT 1 FROM outbox WHERE msg_id = $1 AND created_at < now() - interval '6500 ms'`, [createdEvent])).rowCount === 1, 30_000, 200);
    expect(await waiting(), 'still in the outbox just before NATS comes back: not published during the outage').to.equal(true);
    await nats.up();
    await waitFor('the outbox relay to publish the held event once NATS is back', async () => !(await waiting()), 60_000, 200);
    expect(await waitFinal(client, during.body.id, 60_000), 'the send accepted during the outage').to.include({ status: 'approved', sent: 2 });
    const final = await waitFinal(client, created.body.id, 120_000);
    const duplicates = assertEveryDeviceOnce(final, 'after NATS restart') - 2; // less the send accepted during the outage
    console.log(`      NATS restart: ${duplicates} duplicate deliveries`);
    await Promise.all([api.kill(), s1.kill(), s2.kill()]);
  });
});
