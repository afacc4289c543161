// The scheduler and the transitions with no sender running: schedules that cannot jam (each due
// send fires on its own; one that cannot becomes a draft saying why), a scheduled send firing
// while its app is paused, a pause with no device reached, and leadership by advisory lock.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { silentLogger } from '../../core/log.js';
import { setInvoiceOverdue, upsertApp } from '../../core/apps/app-store.js';
import { fireDueSends } from '../../core/send/fire-due.js';
import { runDuties, startScheduler, type Scheduler } from '../../core/send/scheduler.js';
import { DEFAULT_RETENTION } from '../../core/send/retention.js';
import { planNext } from '../../core/delivery/planner.js';
import { addDevices, createTestApp, send } from './fixtures.js';
import { waitFor } from '../support/wait.js';

describe('delivery: scheduler and transitions without a sender', function () {
  this.timeout(60_000);
  const env = useTestEnv();
  const row = async (id: number) =>
    (await env.pool.query('SELECT status, message, total_recipients, left_out, sent, stopped FROM sends WHERE id = $1', [id])).rows[0];
  const due = (id: number) => env.pool.query(`UPDATE sends SET send_after = now() - interval '1 second' WHERE id = $1`, [id]);
  const later = () => new Date(Date.now() + 3_600_000).toISOString();

  it('a due send that cannot fire becomes a draft with its reason and holds back no other', async () => {
    const vip = await createTestApp(env.pool, 'vip', { segments: [{ name: 'VIP', conditions: [{ key: 'vip', relation: 'exists' }] }] });
    const other = await createTestApp(env.pool, 'other');
    await addDevices(env.pool, vip.app.id, 3, { tags: { vip: '1' } });
    await addDevices(env.pool, other.app.id, 4, { prefix: 'b' });
    const broken = await send(env, vip.app, { included_segments: ['VIP'], contents: { en: 'x' }, send_after: later() });
    const fine = await send(env, other.app, { included_segments: ['All'], contents: { en: 'y' }, send_after: later() });
    expect([broken.body.status, fine.body.status]).to.deep.equal(['scheduled', 'scheduled']);
    // The custom segment is removed while the send waits; the broken send is due first.
    await upsertApp(env.pool, { name: vip.app.name, bundleId: vip.app.bundleId, segments: [] });
    await env.pool.query(`UPDATE sends SET send_after = now() - interval '2 seconds' WHERE id = $1`, [broken.body.id]);
    await due(fine.body.id);
    const fired = await fireDueSends({ pool: env.pool });
    expect(fired.map((f) => [f.sendId, f.status])).to.deep.equal([
      [broken.body.id, 'draft'],
      [fine.body.id, 'queued'],
    ]);
    const b = await row(broken.body.id);
    expect(b).to.include({ status: 'draft', total_recipients: 3, left_out: 3, sent: 0 });
    expect(b.message).to.equal(`Not sent at its scheduled time: segment VIP is not defined for app ${vip.app.name}.`);
    expect(await row(fine.body.id)).to.include({ status: 'queued', total_recipients: 4, message: 'Queued for 4 devices; delivery goes on in the background.' });
  });

  it('a scheduled send firing while its app is paused ends draft, all of its audience left out', async () => {
    const t = await createTestApp(env.pool, 'paused-fire');
    await addDevices(env.pool, t.app.id, 5, { prefix: 'c' });
    const created = await send(env, t.app, { included_segments: ['All'], contents: { en: 'x' }, send_after: later() });
    await setInvoiceOverdue(env.pool, t.app.id, true);
    await due(created.body.id);
    await runDuties({ pool: env.pool, logger: silentLogger() });
    expect(await row(created.body.id)).to.include({
      status: 'draft',
      total_recipients: 5,
      left_out: 5,
      sent: 0,
      message: 'Not sent: delivery is paused until the invoice for the app is paid.',
    });
  });

  it('a pause with no device reached ends the send draft, remaining 0, everything left out', async () => {
    const t = await createTestApp(env.pool, 'paused-early');
    await addDevices(env.pool, t.app.id, 1200, { prefix: 'd' });
    const created = await send(env, t.app, { included_segments: ['All'], contents: { en: 'x' } });
    expect(created.body.status).to.equal('queued');
    await setInvoiceOverdue(env.pool, t.app.id, true);
    await runDuties({ pool: env.pool, logger: silentLogger() }); // the pause sweep
    expect(await row(created.body.id)).to.include({
      status: 'draft',
      stopped: 'paused',
      total_recipients: 1200,
      left_out: 1200,
      sent: 0,
      message: 'Delivery paused: the app has an invoice past its due date. 1,200 devices were not sent and will not be.',
    });
  });

  it('a send that cannot be planned becomes a draft with its reason; the next one is planned', async () => {
    while (await planNext(env.pool)); // sends of the tests above, planned out of the way
    const vip = await createTestApp(env.pool, 'vip2', { segments: [{ name: 'VIP', conditions: [{ key: 'vip', relation: 'exists' }] }] });
    await addDevices(env.pool, vip.app.id, 4, { prefix: 'f', tags: { vip: '1' } });
    const broken = await send(env, vip.app, { included_segments: ['VIP'], contents: { en: 'x' } });
    const fine = await send(env, vip.app, { included_segments: ['All'], contents: { en: 'y' } });
    await upsertApp(env.pool, { name: vip.app.name, bundleId: vip.app.bundleId, segments: [] });
    const first = await planNext(env.pool);
    expect(first).to.deep.include({ sendId: broken.body.id });
    expect(await row(broken.body.id)).to.include({
      status: 'draft',
      left_out: 4,
      message: `Not sent: it could not be planned (segment VIP is not defined for app ${vip.app.name}).`,
    });
    expect(await planNext(env.pool)).to.deep.equal({ sendId: fine.body.id, outcome: { kind: 'planned', chunks: 1 } });
  });

  it('exactly one process runs the duties (PostgreSQL advisory lock); another takes over when it stops', async () => {
    const started: Scheduler[] = [];
    try {
      for (let i = 0; i < 3; i++) started.push(startScheduler({ pool: env.pool, logger: silentLogger(), retention: DEFAULT_RETENTION }, 100));
      const leaders = () => waitFor('a leader among the schedulers', () => {
        const leading = started.filter((s) => s.leading());
        return leading.length > 0 && leading;
      }, 10_000, 20);
      const first = await leaders();
      expect(first).to.have.length(1);
      // The lock is PostgreSQL's: exactly one session holds it, and it is the leader's.
      const holders = await env.pool.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`);
      expect(holders.rows[0].n).to.equal(1);
      expect(started.filter((s) => s.leading())).to.deep.equal(first);
      await first[0].stop();
      started.splice(started.indexOf(first[0]), 1);
      const next = await leaders();
      expect(next).to.have.length(1);
      // It works: a due send of the next leader's round fires.
      const t = await createTestApp(env.pool, 'leader');
      await addDevices(env.pool, t.app.id, 2, { prefix: 'e' });
      const created = await send(env, t.app, { included_segments: ['All'], contents: { en: 'x' }, send_after: later() });
      await due(created.body.id);
      await waitFor(`send ${created.body.id} fired by the next leader`, async () => (await row(created.body.id)).status !== 'scheduled', 10_000, 20);
      expect((await row(created.body.id)).status).to.equal('queued');
    } finally {
      await Promise.all(started.map((s) => s.stop()));
    }
  });
});
