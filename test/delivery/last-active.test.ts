// `delayed_option: last-active` (issue 38 point 4) in-process against the real PostgreSQL, Redis,
// NATS JetStream and the APNs simulator: the plan's groups by last-active hour and their instants
// (read from send_chunks, released by an injected clock: the sender's own duties run on the real
// clock, which never reaches them), installs never active at once, the send `scheduled` until its
// last group, exact counts, and an install active again after the plan reached once, in its group.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import type { Sender } from '../../sender/index.js';
import { fireDueSends } from '../../core/send/fire-due.js';
import { releaseDueChunks } from '../../core/delivery/timezone.js';
import { hourMoment } from '../../core/delivery/last-active.js';
import { addDevices, createTestApp, send, stats, token, waitFinal, type TestApp, startTestSender } from './fixtures.js';
import { cancelSend } from '../../core/send/cancel.js';
import { waitFor } from '../support/wait.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('delivery: delayed_option last-active', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let sim: ApnsSim;
  let sender: Sender;
  let main: TestApp;

  before(async () => {
    main = await createTestApp(env.pool, 'lastactive');
    sim = await startApnsSim({ keys: [{ keyId: main.key.keyId, teamId: main.teamId, publicKey: main.key.publicKeyPem }] });
    sender = await startTestSender(env, sim);
  });
  after(async () => {
    await sender?.stop();
    await sim?.close();
  });
  beforeEach(() => sim.reset());

  const chunksOf = async (id: number) =>
    (await env.pool.query<{ chunk: number; not_before: Date; planned: number; by_zone: boolean }>(
      'SELECT chunk, not_before, planned, by_zone FROM send_chunks WHERE send_id = $1 ORDER BY chunk', [id])).rows;
  const waitChunksDone = (id: number, n: number) =>
    waitFor(`send ${id}: ${n} chunks done`, async () => (await env.pool.query('SELECT chunks_done FROM sends WHERE id = $1', [id])).rows[0].chunks_done >= n, 60_000, 50);
  const lastActiveAt = (appId: string, prefix: string, at: string | null) =>
    env.pool.query('UPDATE subscriptions SET last_active = $3::timestamptz WHERE app_id = $1 AND token LIKE $2', [appId, `${prefix}%`, at]);

  it('hourMoment: the first hour:00 not before the start, the start itself inside that hour, never active at the start', () => {
    const from = new Date('2026-03-02T10:30:00Z');
    expect(hourMoment(null, from).toISOString()).to.equal('2026-03-02T10:30:00.000Z');
    expect(hourMoment(10, from).toISOString()).to.equal('2026-03-02T10:30:00.000Z');
    expect(hourMoment(11, from).toISOString()).to.equal('2026-03-02T11:00:00.000Z');
    expect(hourMoment(23, from).toISOString()).to.equal('2026-03-02T23:00:00.000Z');
    expect(hourMoment(0, from).toISOString()).to.equal('2026-03-03T00:00:00.000Z');
    expect(hourMoment(9, from).toISOString()).to.equal('2026-03-03T09:00:00.000Z'); // 9:00–10:00 has passed
    const onHour = new Date('2026-03-02T10:00:00Z');
    expect(hourMoment(10, onHour).toISOString()).to.equal('2026-03-02T10:00:00.000Z');
    expect(hourMoment(9, onHour).toISOString()).to.equal('2026-03-03T09:00:00.000Z');
  });

  it('each install at the hour it was last active, within 24 h of send_after; never active at once; exact counts', async () => {
    const app = (await createTestApp(env.pool, 'hours', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 3, { prefix: 'f1' }); // 08:15 → the next day's 08:00
    await addDevices(env.pool, app.id, 2, { prefix: 'f2' }); // 10:05 → inside the start's hour: at the start
    await addDevices(env.pool, app.id, 600, { prefix: 'f3' }); // 14:45 → 14:00, two chunks
    await addDevices(env.pool, app.id, 4, { prefix: 'f4' }); // never active → at the start
    await addDevices(env.pool, app.id, 1, { prefix: 'f5' }); // 23:59 → 23:00
    await lastActiveAt(app.id, 'f1', '2026-01-05T08:15:00Z');
    await lastActiveAt(app.id, 'f2', '2025-12-31T10:05:00Z');
    await lastActiveAt(app.id, 'f3', '2026-02-01T14:45:00Z');
    await lastActiveAt(app.id, 'f4', null);
    await lastActiveAt(app.id, 'f5', '2026-02-10T23:59:59Z');

    // 10:30 UTC two days ahead: the real clock never reaches any group's moment.
    const day = isoDate(Date.now() + 2 * DAY);
    const next = isoDate(Date.now() + 3 * DAY);
    const start = new Date(`${day}T10:30:00Z`);
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'Hi' }, delayed_option: 'last-active', send_after: start.toISOString() });
    expect(created.body).to.include({ status: 'scheduled', estimate: 610 });
    const id = created.body.id;
    expect(await fireDueSends({ pool: env.pool, now: new Date(start.getTime() - 1) })).to.deep.equal([]);
    expect(await fireDueSends({ pool: env.pool, bus: env.bus, now: start })).to.deep.equal([{ sendId: id, status: 'scheduled', totalRecipients: 610 }]);
    expect((await env.pool.query('SELECT message FROM sends WHERE id = $1', [id])).rows[0].message).to.equal('Going out to 610 devices, each at the time of day it was last active (within 24 hours).');

    // The plan, in the order it goes out: never active (-1) and hour 10 at the start, then 14:00, 23:00, the next day's 08:00.
    const chunks = await chunksOf(id);
    expect(chunks.map((c) => [c.not_before.toISOString(), c.planned])).to.deep.equal([
      [start.toISOString(), 4],
      [start.toISOString(), 2],
      [`${day}T14:00:00.000Z`, 500],
      [`${day}T14:00:00.000Z`, 100],
      [`${day}T23:00:00.000Z`, 1],
      [`${next}T08:00:00.000Z`, 3],
    ]);
    expect(chunks.every((c) => !c.by_zone)).to.equal(true);
    expect((await env.pool.query('SELECT chunks_total FROM sends WHERE id = $1', [id])).rows[0].chunks_total).to.equal(6);

    // One 14:45 install opens the app after the plan (now 19:xx): it stays in its 14:00 group, reached once.
    await env.pool.query(`UPDATE subscriptions SET last_active = $2::timestamptz WHERE app_id = $1 AND token = $3`, [app.id, `${day}T09:40:00Z`, token('f3', 7)]);

    // At the start: the installs never active and those of the start's hour.
    expect((await releaseDueChunks({ pool: env.pool, bus: env.bus, now: start })).map((r) => r.chunk)).to.deep.equal([0, 1]);
    await waitChunksDone(id, 2);
    expect(sim.stats().requests).to.equal(6);
    expect(sim.deliveries(token('f4', 3))).to.have.length(1);
    expect(sim.deliveries(token('f2', 1))).to.have.length(1);
    expect(sim.deliveries(token('f3', 7))).to.have.length(0);
    expect(await stats(env.pool, id)).to.include({ status: 'scheduled', total_recipients: 610, processed: 6, remaining: 604, sent: 6 });

    // 14:00: the 600.
    expect((await releaseDueChunks({ pool: env.pool, bus: env.bus, now: new Date(`${day}T14:00:00Z`) })).map((r) => r.chunk)).to.deep.equal([2, 3]);
    await waitChunksDone(id, 4);
    expect(sim.stats().requests).to.equal(606);
    expect(sim.deliveries(token('f3', 7))).to.have.length(1);
    expect(await stats(env.pool, id)).to.include({ status: 'scheduled', processed: 606 });

    // The rest, the next day: the send ends approved, every install reached once.
    expect((await releaseDueChunks({ pool: env.pool, bus: env.bus, now: new Date(`${next}T08:00:00Z`) })).map((r) => r.chunk)).to.deep.equal([4, 5]);
    await waitChunksDone(id, 6);
    await waitFor(`send ${id} approved`, async () => (await stats(env.pool, id)).status === 'approved', 30_000, 50);
    expect(await stats(env.pool, id)).to.include({ status: 'approved', total_recipients: 610, processed: 610, sent: 610, failed: 0, skipped: 0 });
    expect(sim.stats().requests).to.equal(610);
  });

  it('without send_after: scheduled at accept, an install never active reached at once, the others at their hour', async () => {
    const app = (await createTestApp(env.pool, 'now', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 1, { prefix: 'f6', tags: { k: 'v' } }); // never active
    await addDevices(env.pool, app.id, 2, { prefix: 'f7', tags: { k: 'v' } }); // active three hours from now, tomorrow or today
    await addDevices(env.pool, app.id, 1, { prefix: 'f8' }); // not in the audience
    await lastActiveAt(app.id, 'f6', null);
    const hour = (new Date().getUTCHours() + 3) % 24;
    await lastActiveAt(app.id, 'f7', `2026-01-01T${String(hour).padStart(2, '0')}:20:00Z`);
    const created = await send(env, app, { tag: { key: 'k', relation: '=', value: 'v' }, included_segments: undefined, contents: { en: 'Hi' }, delayed_option: 'last-active' });
    expect(created.body).to.include({ status: 'scheduled', estimate: 3 });
    const id = created.body.id;
    // The sender's own scheduler fires it and releases the group of the start on the real clock.
    await waitFor('the install never active reached', async () => sim.deliveries(token('f6', 0)).length === 1, 30_000, 50);
    const chunks = await chunksOf(id);
    expect(chunks.map((c) => c.planned)).to.deep.equal([1, 2]);
    const startedAt = (await env.pool.query('SELECT created_at FROM sends WHERE id = $1', [id])).rows[0].created_at as Date;
    expect(chunks[0].not_before.toISOString()).to.equal(startedAt.toISOString());
    expect(chunks[1].not_before.toISOString()).to.equal(hourMoment(hour, startedAt).toISOString());
    expect(chunks[1].not_before.getTime() - startedAt.getTime()).to.be.within(2 * HOUR, 3 * HOUR);
    expect(sim.deliveries(token('f7', 0))).to.have.length(0);
    expect(await stats(env.pool, id)).to.include({ status: 'scheduled', processed: 1, remaining: 2 });
    // Leave nothing waiting for the other tests (releaseDueChunks is global).
    await releaseDueChunks({ pool: env.pool, bus: env.bus, now: chunks[1].not_before });
    await waitFor(`send ${id} approved`, async () => (await stats(env.pool, id)).status === 'approved', 30_000, 50);
    expect(sim.deliveries(token('f7', 1))).to.have.length(1);
    expect(sim.deliveries(token('f8', 0))).to.have.length(0);
  });
  it('a list send: each id at the hour of its first install, an id with no install at the start, counted once', async () => {
    const app = (await createTestApp(env.pool, 'hourlist', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 2, { prefix: 'f9', externalIdPrefix: 'u-' }); // u-1, u-2: 16:10
    await addDevices(env.pool, app.id, 1, { prefix: 'fa', externalIdPrefix: 'u-' }); // u-1's second install: 03:00
    await lastActiveAt(app.id, 'f9', '2026-01-01T16:10:00Z');
    await lastActiveAt(app.id, 'fa', '2026-01-01T03:00:00Z');
    const day = isoDate(Date.now() + 2 * DAY);
    const start = new Date(`${day}T06:00:00Z`);
    const created = await send(env, app, { include_external_ids: ['u-1', 'u-2', 'nobody'], included_segments: undefined, contents: { en: 'x' }, delayed_option: 'last-active', send_after: start.toISOString() });
    expect(created.body.status).to.equal('scheduled');
    await fireDueSends({ pool: env.pool, bus: env.bus, now: start });
    const chunks = await env.pool.query('SELECT planned, entries, not_before, by_zone, timezone FROM send_chunks WHERE send_id = $1 ORDER BY chunk', [created.body.id]);
    expect(chunks.rows.map((c) => [c.not_before.toISOString(), c.planned, c.entries, c.by_zone, c.timezone])).to.deep.equal([
      [start.toISOString(), 1, ['nobody'], false, null],
      [`${day}T16:00:00.000Z`, 2, ['u-1', 'u-2'], false, null], // u-1 goes with its first install (by seq)
    ]);
    await releaseDueChunks({ pool: env.pool, bus: env.bus, now: new Date(`${day}T16:00:00Z`) });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'approved', total_recipients: 3, sent: 2, skipped: 1, remaining: 0 }); // counted by id
    expect(sim.deliveries(token('fa', 0))).to.have.length(1); // u-1's second install, with u-1
    expect(sim.stats().requests).to.equal(3);
  });

  it('a cancel between groups: the groups not yet out are left out, the send ends approved', async () => {
    const app = (await createTestApp(env.pool, 'hourcancel', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 2, { prefix: 'fb' }); // never active: at the start
    await addDevices(env.pool, app.id, 3, { prefix: 'fc' }); // 20:30
    await lastActiveAt(app.id, 'fb', null);
    await lastActiveAt(app.id, 'fc', '2026-01-01T20:30:00Z');
    const day = isoDate(Date.now() + 2 * DAY);
    const start = new Date(`${day}T06:00:00Z`);
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'x' }, delayed_option: 'last-active', send_after: start.toISOString() });
    const id = created.body.id;
    await fireDueSends({ pool: env.pool, bus: env.bus, now: start });
    await releaseDueChunks({ pool: env.pool, bus: env.bus, now: start });
    await waitChunksDone(id, 1);
    expect(await stats(env.pool, id)).to.include({ status: 'scheduled', sent: 2, remaining: 3 });
    expect(await cancelSend(env.pool, app.id, id)).to.deep.equal({ kind: 'canceled' });
    const { final } = await waitFinal(env.pool, id);
    expect(final).to.include({ status: 'approved', total_recipients: 5, sent: 2, processed: 2, remaining: 0 });
    expect((await env.pool.query('SELECT left_out, canceled_at IS NOT NULL AS canceled FROM sends WHERE id = $1', [id])).rows[0]).to.deep.equal({ left_out: 3, canceled: true });
    expect(await releaseDueChunks({ pool: env.pool, bus: env.bus, now: new Date(`${day}T21:00:00Z`) })).to.deep.equal([]);
    expect(sim.stats().requests).to.equal(2);
  });
});
