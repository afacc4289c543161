// A send whose jobs were lost (they ran out of deliveries while PostgreSQL or NATS was down) is
// given its jobs again once it has been idle, and then finishes with exact counts.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { useTestEnv } from '../env/index.js';
import { silentLogger } from '../../core/log.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import { startSender, type Sender } from '../../sender/index.js';
import { planSend } from '../../core/delivery/planner.js';
import { repairStalledSends } from '../../core/delivery/repair.js';
import type { Bus } from '../../core/bus/jetstream.js';
import { addDevices, createTestApp, send, waitFinal, type TestApp } from './fixtures.js';

describe('delivery: repair of stalled sends', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let sim: ApnsSim;
  let sender: Sender | undefined;
  let t: TestApp;

  before(async () => {
    t = await createTestApp(env.pool, 'repair');
    await addDevices(env.pool, t.app.id, 1200, { prefix: 'a1' });
    sim = await startApnsSim({ keys: [{ keyId: t.key.keyId, teamId: t.teamId, publicKey: t.key.publicKeyPem }] });
  });
  after(async () => {
    await sender?.stop();
    await sim?.close();
  });

  const workMessages = async () => (await env.bus.jsm.streams.info(env.bus.names.workStream)).state.messages;
  const age = (id: number) => env.pool.query("UPDATE sends SET updated_at = now() - interval '1 hour' WHERE id = $1", [id]);

  it('republishes the plan job of a send never planned and the chunk jobs of a send planned but never delivered', async () => {
    // Send A: its plan job is lost.
    const a = await send(env, t.app, { contents: { en: 'A' }, included_segments: ['Subscribed Users'] });
    await env.bus.jsm.streams.purge(env.bus.names.workStream);
    // Send B: planned, but its chunk jobs never reached the bus.
    const b = await send(env, t.app, { contents: { en: 'B' }, included_segments: ['Subscribed Users'] });
    await env.bus.jsm.streams.purge(env.bus.names.workStream);
    const lostBus = { ...env.bus, publish: async () => undefined } as Bus;
    await planSend({ pool: env.pool, bus: lostBus }, b.body.id);
    // A send that progressed recently is left alone.
    const c = await send(env, t.app, { contents: { en: 'C' }, included_segments: ['Subscribed Users'] });
    await env.bus.jsm.streams.purge(env.bus.names.workStream);

    await age(a.body.id);
    await age(b.body.id);
    const repaired = await repairStalledSends(env.pool, env.bus, { idleMs: 60_000 });
    expect(repaired.plans).to.deep.equal([a.body.id]);
    expect(repaired.chunks).to.deep.equal([0, 1, 2].map((chunk) => ({ sendId: b.body.id, chunk })));
    expect(await workMessages()).to.equal(4);

    // Repaired sends restart their idle clock: a second round right away repairs nothing.
    const again = await repairStalledSends(env.pool, env.bus, { idleMs: 60_000 });
    expect(again).to.deep.equal({ plans: [], chunks: [] });

    sender = await startSender({
      pool: env.pool,
      bus: env.bus,
      logger: silentLogger(),
      apns: { url: sim.url, ca: await readFile(sim.caFile, 'utf8') },
      concurrency: 4,
      dutyEveryMs: 200,
    });
    for (const id of [a.body.id, b.body.id]) {
      const { final } = await waitFinal(env.pool, id);
      expect(final).to.include({ status: 'approved', total_recipients: 1200, sent: 1200, processed: 1200, remaining: 0 });
    }
    const stuck = (await env.pool.query('SELECT status FROM sends WHERE id = $1', [c.body.id])).rows[0].status;
    expect(stuck, 'not idle long enough to be repaired').to.equal('queued');
  });

  it('publishes each repair once per idle period across senders (message ids carry the period)', async () => {
    await sender?.stop();
    sender = undefined;
    const d = await send(env, t.app, { contents: { en: 'D' }, included_segments: ['Subscribed Users'] });
    await env.bus.jsm.streams.purge(env.bus.names.workStream);
    await age(d.body.id);
    const now = new Date();
    await repairStalledSends(env.pool, env.bus, { idleMs: 60_000, now });
    await age(d.body.id); // a second sender that read the row before the first touched it
    await repairStalledSends(env.pool, env.bus, { idleMs: 60_000, now });
    expect(await workMessages()).to.equal(1);
  });
});
