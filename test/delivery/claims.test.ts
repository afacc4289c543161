// PostgreSQL as the one owner of chunk state: the claim's order (least recently served send first,
// so a list send does not wait behind a broadcast), leases that run out, throttle waits that are
// never counted as failures, and a send whose wake-up was lost still delivered.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import type { Sender } from '../../sender/index.js';
import { planSend } from '../../core/delivery/planner.js';
import { claimNext } from '../../core/delivery/claim.js';
import type { Bus } from '../../core/bus/jetstream.js';
import { addDevices, createTestApp, send, startTestSender, waitFinal, type TestApp } from './fixtures.js';
import { waitFor } from '../support/wait.js';

describe('delivery: claims in PostgreSQL', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let t: TestApp;
  let sim: ApnsSim;
  let sender: Sender | undefined;

  before(async () => {
    t = await createTestApp(env.pool, 'claims');
    sim = await startApnsSim({ keys: [{ keyId: t.key.keyId, teamId: t.teamId, publicKey: t.key.publicKeyPem }] });
  });
  after(async () => {
    await sender?.stop();
    await sim?.close();
  });

  // Retires a send this test is done with, so the next test's claims do not see it.
  const done = (id: number) => env.pool.query(`UPDATE sends SET stopped = 'paused', status = 'draft' WHERE id = $1`, [id]);

  it('the least recently served send goes first: a list send is claimed before the rest of a broadcast', async () => {
    const other = await createTestApp(env.pool, 'other', { key: t.key, teamId: t.teamId });
    await addDevices(env.pool, t.app.id, 1500, { prefix: 'a' });
    await addDevices(env.pool, other.app.id, 3, { prefix: 'b', externalIdPrefix: 'u' });
    const broadcast = await send(env, t.app, { included_segments: ['All'], contents: { en: 'x' } });
    await planSend({ pool: env.pool }, broadcast.body.id);
    const first = await claimNext(env.pool, 30_000);
    expect([first?.sendId, first?.chunk]).to.deep.equal([broadcast.body.id, 0]);
    const list1 = await send(env, other.app, { include_external_ids: ['u1'], contents: { en: 'y' } });
    const list2 = await send(env, other.app, { include_external_ids: ['u2'], contents: { en: 'z' } });
    const order = [];
    for (let i = 0; i < 4; i++) {
      const c = await claimNext(env.pool, 30_000);
      order.push(c && [c.sendId, c.chunk]);
    }
    expect(order).to.deep.equal([
      [list1.body.id, 0],
      [list2.body.id, 0],
      [broadcast.body.id, 1],
      [broadcast.body.id, 2],
    ]);
    for (const id of [broadcast.body.id, list1.body.id, list2.body.id]) await done(id);
  });

  it('a claim holds its chunk until its lease runs out; then another claim takes it, counted', async () => {
    const created = await send(env, t.app, { include_external_ids: ['nobody'], contents: { en: 'x' } });
    await env.pool.query('INSERT INTO send_chunks (send_id, chunk, planned) VALUES ($1, 0, 1) ON CONFLICT DO NOTHING', [created.body.id]);
    await env.pool.query(`UPDATE sends SET status = 'sending', chunks_total = 1 WHERE id = $1`, [created.body.id]);
    const leaseOf = async () =>
      (await env.pool.query('SELECT lease_until::text AS at FROM send_chunks WHERE send_id = $1 AND chunk = 0', [created.body.id])).rows[0].at as string;
    const a = await claimNext(env.pool, 1000);
    expect(a).to.include({ sendId: created.body.id, chunk: 0, claims: 1 });
    const firstLease = await leaseOf();
    expect(await claimNext(env.pool, 1000)).to.equal(undefined);
    const b = await waitFor('a second claim of the chunk once its lease ran out', () => claimNext(env.pool, 1000), 10_000, 50);
    expect(b).to.include({ sendId: created.body.id, chunk: 0, claims: 2 });
    // In order, on the database's clock: the second claim began (its lease less 1 s) no earlier
    // than the first lease's end.
    const order = await env.pool.query('SELECT $1::timestamptz - interval \'1 second\' >= $2::timestamptz AS after', [await leaseOf(), firstLease]);
    expect(order.rows[0].after, `second claim's lease ${await leaseOf()} vs first ${firstLease}`).to.equal(true);
    await done(created.body.id);
  });

  it('a throttled chunk handed back again and again is never counted failed', async () => {
    // Every wait is handed back; the old engine counted each as a delivery of the job.
    sender = await startTestSender(env, sim, { maxChunkStarts: 2, maxHoldMs: 0, idlePollMs: 100 });
    const created = await send(env, t.app, { included_segments: ['All'], contents: { en: 'x' }, throttle_rate_per_minute: 60_000 });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'approved', sent: 1500, failed: 0, skipped: 0 });
    const claims = await env.pool.query('SELECT max(claims) AS most FROM send_chunks WHERE send_id = $1', [created.body.id]);
    expect(claims.rows[0].most).to.equal(1);
    const handedBack = (await sender.metrics.chunks.get()).values.find((v) => v.labels.result === 'handed_back_throttle');
    expect(handedBack?.value ?? 0, 'chunks were handed back').to.be.greaterThan(0);
  });

  it('a send whose wake-up was lost is delivered by the idle poll', async () => {
    const deaf = { ...env.bus, nc: { publish: () => undefined } } as unknown as Bus;
    const created = await send({ pool: env.pool, bus: deaf }, t.app, { included_segments: ['All'], contents: { en: 'y' } });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'approved', sent: 1500 });
  });
});
