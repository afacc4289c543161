// `delayed_option: timezone` delivery in-process against the real PostgreSQL, Redis, NATS
// JetStream and the APNs simulator: zone chunks and their instants, zones released by an injected
// clock (the sender's own duties run on the real clock, which never reaches these instants), the
// send `scheduled` until its last zone, exact counts.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { useTestEnv } from '../env/index.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import type { Sender } from '../../sender/index.js';
import { fireDueSends } from '../../core/send/fire-due.js';
import { releaseDueChunks } from '../../core/delivery/timezone.js';
import { addDevices, createTestApp, send, stats, token, waitFinal, type TestApp, startTestSender } from './fixtures.js';
import { waitFor } from '../support/wait.js';

const DAY = 86_400_000;

/** "YYYY-MM-DD HH:MM" as the zone's clock shows it at `at`. */
function wall(zone: string, at: Date): string {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' })
      .formatToParts(at)
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface ChunkRow {
  chunk: number;
  timezone: string | null;
  not_before: Date;
  planned: number;
  state: string;
  released_at: Date | null;
}

describe('delivery: delayed_option timezone', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let sim: ApnsSim;
  let sender: Sender;
  let main: TestApp;

  before(async () => {
    main = await createTestApp(env.pool, 'main');
    sim = await startApnsSim({ keys: [{ keyId: main.key.keyId, teamId: main.teamId, publicKey: main.key.publicKeyPem }] });
    sender = await startTestSender(env, sim);
  });

  after(async () => {
    await sender?.stop();
    await sim?.close();
  });

  beforeEach(() => sim.reset());

  const chunksOf = async (id: number) =>
    (await env.pool.query<ChunkRow>('SELECT chunk, timezone, not_before, planned, state, released_at FROM send_chunks WHERE send_id = $1 ORDER BY chunk', [id])).rows;

  const zoneOf = (prefix: string) => (prefix === 'a1' ? 'Pacific/Auckland' : prefix === 'b1' ? 'Europe/Paris' : prefix === 'c1' ? 'America/New_York' : null);

  const waitChunksDone = (id: number, n: number) =>
    waitFor(`send ${id}: ${n} chunks done`, async () => (await env.pool.query('SELECT chunks_done FROM sends WHERE id = $1', [id])).rows[0].chunks_done >= n, 60_000, 50);

  /** Until the send's plan is recorded (the sender's own duty may be firing it at this moment). */
  const planned = (id: number) =>
    waitFor(`send ${id} planned`, async () => (await env.pool.query('SELECT chunks_total FROM sends WHERE id = $1', [id])).rows[0].chunks_total !== null, 30_000, 50);

  // Each test releases zones with an injected clock; releaseDueChunks is global, so every test
  // leaves no chunk of its own waiting.
  it('each zone goes out when its clock shows the time, the send stays scheduled until the last zone', async () => {
    const app = (await createTestApp(env.pool, 'zones', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 600, { prefix: 'a1' });
    await addDevices(env.pool, app.id, 200, { prefix: 'b1' });
    await addDevices(env.pool, app.id, 150, { prefix: 'c1' });
    await addDevices(env.pool, app.id, 40, { prefix: 'd1' }); // no zone
    await addDevices(env.pool, app.id, 10, { prefix: 'e1' }); // a zone nobody knows: the fallback offset
    for (const prefix of ['a1', 'b1', 'c1']) {
      await env.pool.query('UPDATE subscriptions SET timezone = $2 WHERE app_id = $1 AND token LIKE $3', [app.id, zoneOf(prefix), `${prefix}%`]);
    }
    await env.pool.query(`UPDATE subscriptions SET timezone = 'Mars/Olympus' WHERE app_id = $1 AND token LIKE 'e1%'`, [app.id]);

    // 12:00 UTC two days ahead: the real clock (the sender's own duties) never reaches any zone's moment.
    const day = isoDate(Date.now() + 2 * DAY);
    const sendAfter = new Date(`${day}T12:00:00Z`);
    const created = await send(env, app, {
      included_segments: ['All'],
      contents: { en: 'Good noon' },
      delayed_option: 'timezone',
      send_after: `${day}T12:00:00Z`,
      throttle_rate_per_minute: 1, // not used for timezone sends (it would hold every chunk after the first for 500 minutes)
    });
    expect(created.body).to.include({ status: 'scheduled', estimate: 1000 });
    const id = created.body.id;

    // Not before send_after.
    expect(await fireDueSends({ pool: env.pool, now: new Date(sendAfter.getTime() - 1) })).to.deep.equal([]);
    const fired = await fireDueSends({ pool: env.pool, bus: env.bus, now: sendAfter });
    expect(fired).to.deep.equal([{ sendId: id, status: 'scheduled', totalRecipients: 1000 }]);
    expect(await fireDueSends({ pool: env.pool, now: new Date(sendAfter.getTime() + 3 * DAY) })).to.deep.equal([]); // fires once

    // The plan: chunks by zone, in the order they go out, none released.
    const chunks = await chunksOf(id);
    expect(chunks.map((c) => [c.timezone, c.planned])).to.deep.equal([
      [null, 40],
      ['Mars/Olympus', 10],
      ['America/New_York', 150],
      ['Pacific/Auckland', 500],
      ['Pacific/Auckland', 100],
      ['Europe/Paris', 200],
    ]);
    expect(chunks.every((c) => c.state === 'planned' && c.released_at === null)).to.equal(true);
    const next = isoDate(sendAfter.getTime() + DAY);
    const momentOf = (zone: string | null) => chunks.find((c) => c.timezone === zone)!.not_before;
    // No zone, unknown zone: send_after's offset (UTC here), 12:00 that day = send_after itself.
    expect(momentOf(null).toISOString()).to.equal(sendAfter.toISOString());
    expect(momentOf('Mars/Olympus').toISOString()).to.equal(sendAfter.toISOString());
    // New York's 12:00 that day is still ahead at 12:00Z; Paris' and Auckland's have passed: the next day's.
    expect(wall('America/New_York', momentOf('America/New_York'))).to.equal(`${day} 12:00`);
    expect(wall('Europe/Paris', momentOf('Europe/Paris'))).to.equal(`${next} 12:00`);
    expect(wall('Pacific/Auckland', momentOf('Pacific/Auckland'))).to.equal(`${next} 12:00`);
    for (const c of chunks) {
      // The first such moment not before send_after: at or after it, and less than a day after it.
      expect(c.not_before.getTime()).to.be.at.least(sendAfter.getTime());
      expect(c.not_before.getTime()).to.be.below(sendAfter.getTime() + DAY);
    }
    const sorted = [...chunks].sort((a, b) => a.not_before.getTime() - b.not_before.getTime());
    expect(sorted.map((c) => c.chunk)).to.deep.equal(chunks.map((c) => c.chunk));

    // Clock at send_after: only the devices with no (known) zone are due.
    const first = await releaseDueChunks({ pool: env.pool, bus: env.bus, now: sendAfter });
    expect(first.map((r) => r.chunk)).to.deep.equal([0, 1]);
    await waitChunksDone(id, 2);
    expect(sim.stats().requests).to.equal(50);
    expect(sim.deliveries(token('d1', 0))).to.have.length(1);
    expect(sim.deliveries(token('e1', 9))).to.have.length(1);
    for (const t of [token('a1', 0), token('b1', 0), token('c1', 0)]) expect(sim.deliveries(t)).to.have.length(0);
    expect(await stats(env.pool, id)).to.include({ status: 'scheduled', total_recipients: 1000, processed: 50, remaining: 950, sent: 50 });

    // A millisecond before New York's moment nothing more; at it, New York.
    const ny = momentOf('America/New_York');
    expect(await releaseDueChunks({ pool: env.pool, bus: env.bus, now: new Date(ny.getTime() - 1) })).to.deep.equal([]);
    expect((await releaseDueChunks({ pool: env.pool, bus: env.bus, now: ny })).map((r) => r.timezone)).to.deep.equal(['America/New_York']);
    await waitChunksDone(id, 3);
    expect(sim.stats().requests).to.equal(200);
    expect(sim.deliveries(token('c1', 149))).to.have.length(1);
    expect(sim.deliveries(token('b1', 0))).to.have.length(0);
    expect(await stats(env.pool, id)).to.include({ status: 'scheduled', processed: 200, remaining: 800, sent: 200 });

    // The next day: Paris and Auckland; the last chunk recorded finishes the send.
    const released = await releaseDueChunks({ pool: env.pool, bus: env.bus, now: new Date(sendAfter.getTime() + DAY) });
    expect(released.map((r) => r.chunk)).to.deep.equal([3, 4, 5]);
    const { final, seen } = await waitFinal(env.pool, id);
    expect(seen).to.deep.equal(['scheduled', 'approved']);
    expect(final).to.include({ status: 'approved', total_recipients: 1000, processed: 1000, remaining: 0, sent: 1000, failed: 0, skipped: 0 });
    expect(sim.stats().requests).to.equal(1000);
    const after = await chunksOf(id);
    expect(after.every((c) => c.state === 'done' && c.released_at !== null)).to.equal(true);
    expect(await releaseDueChunks({ pool: env.pool, bus: env.bus, now: new Date(sendAfter.getTime() + 3 * DAY) })).to.deep.equal([]);
  });

  it('a list send: each id goes out with the zone of its first install and is counted once', async () => {
    const app = (await createTestApp(env.pool, 'zonelist', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 3, { prefix: 'b2', externalIdPrefix: 'user-' }); // user-1..3, Paris
    await addDevices(env.pool, app.id, 1, { prefix: 'c2', externalIdPrefix: 'user-' }); // user-1's second install, New York
    await env.pool.query(`UPDATE subscriptions SET timezone = 'Europe/Paris' WHERE app_id = $1 AND token LIKE 'b2%'`, [app.id]);
    await env.pool.query(`UPDATE subscriptions SET timezone = 'America/New_York' WHERE app_id = $1 AND token LIKE 'c2%'`, [app.id]);
    const day = isoDate(Date.now() + 2 * DAY);
    const sendAfter = new Date(`${day}T06:00:00Z`);
    const created = await send(env, app, {
      include_external_ids: ['user-1', 'user-2', 'user-3', 'nobody'],
      contents: { en: 'x' },
      delayed_option: 'timezone',
      send_after: `${day}T06:00:00Z`,
      delivery_time_of_day: '9:00AM',
    });
    expect(created.body.status).to.equal('scheduled');
    await fireDueSends({ pool: env.pool, bus: env.bus, now: sendAfter });
    const chunks = await env.pool.query('SELECT timezone, planned, entries, not_before FROM send_chunks WHERE send_id = $1 ORDER BY chunk', [created.body.id]);
    expect(chunks.rows.map((c) => [c.timezone, c.planned, c.entries])).to.deep.equal([
      ['Europe/Paris', 3, ['user-1', 'user-2', 'user-3']],
      [null, 1, ['nobody']], // no subscribed install: send_after's offset (UTC), 09:00Z that day
    ]);
    expect(wall('Europe/Paris', chunks.rows[0].not_before)).to.equal(`${day} 09:00`);
    expect(chunks.rows[1].not_before.toISOString()).to.equal(`${day}T09:00:00.000Z`);
    await releaseDueChunks({ pool: env.pool, bus: env.bus, now: new Date(sendAfter.getTime() + DAY) });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'approved', total_recipients: 4, sent: 3, skipped: 1, remaining: 0 });
    // user-1's New York install goes with user-1 (one entry, one moment): both installs got it.
    expect(sim.deliveries(token('c2', 0))).to.have.length(1);
    expect(sim.stats().requests).to.equal(4);
  });

  it('a VoIP list send (issue 29): an id goes with the zone of its first install holding a VoIP token, not of one the push skips', async () => {
    const app = (await createTestApp(env.pool, 'zonevoip', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 1, { prefix: 'b5', externalIdPrefix: 'caller-' }); // caller-1's first install, Paris, no VoIP token
    await addDevices(env.pool, app.id, 1, { prefix: 'c5', externalIdPrefix: 'caller-' }); // caller-1's second install, New York, a VoIP token
    await env.pool.query(`UPDATE subscriptions SET timezone = 'Europe/Paris' WHERE app_id = $1 AND token LIKE 'b5%'`, [app.id]);
    await env.pool.query(`UPDATE subscriptions SET timezone = 'America/New_York' WHERE app_id = $1 AND token LIKE 'c5%'`, [app.id]);
    await env.pool.query(
      `INSERT INTO push_type_tokens (app_id, subscription_id, push_type, token) SELECT app_id, id, 'voip', $2 FROM subscriptions WHERE app_id = $1 AND token LIKE 'c5%'`,
      [app.id, token('f5', 0)],
    );
    const day = isoDate(Date.now() + 2 * DAY);
    const sendAfter = new Date(`${day}T06:00:00Z`);
    const created = await send(env, app, {
      include_external_ids: ['caller-1'],
      apns_push_type_override: 'voip',
      delayed_option: 'timezone',
      send_after: `${day}T06:00:00Z`,
      delivery_time_of_day: '9:00AM',
    });
    await fireDueSends({ pool: env.pool, bus: env.bus, now: sendAfter });
    const chunks = await chunksOf(created.body.id);
    expect(chunks.map((c) => [c.timezone, c.planned])).to.deep.equal([['America/New_York', 1]]);
    expect(wall('America/New_York', chunks[0].not_before)).to.equal(`${day} 09:00`);
    await releaseDueChunks({ pool: env.pool, bus: env.bus, now: new Date(sendAfter.getTime() + DAY) });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'approved', total_recipients: 1, sent: 1 });
    expect(sim.deliveries(token('f5', 0)).map((d) => d.headers['apns-push-type'])).to.deep.equal(['voip']);
  });

  it("an include_aliases send of a custom label: each id goes with the zone of its user's first install (issue 27)", async () => {
    const app = (await createTestApp(env.pool, 'zonealias', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 2, { prefix: 'b4' }); // crm-a's two installs, Paris
    await addDevices(env.pool, app.id, 1, { prefix: 'c4' }); // crm-b's install, Tokyo
    const [a, b] = [randomUUID(), randomUUID()];
    await env.pool.query('INSERT INTO users (id, app_id) VALUES ($1, $3), ($2, $3)', [a, b, app.id]);
    await env.pool.query(`INSERT INTO user_aliases (app_id, label, alias_id, user_id) VALUES ($1, 'crm', 'crm-a', $2), ($1, 'crm', 'crm-b', $3)`, [app.id, a, b]);
    await env.pool.query(`UPDATE subscriptions SET user_id = $2, timezone = 'Europe/Paris' WHERE app_id = $1 AND token LIKE 'b4%'`, [app.id, a]);
    await env.pool.query(`UPDATE subscriptions SET user_id = $2, timezone = 'Asia/Tokyo' WHERE app_id = $1 AND token LIKE 'c4%'`, [app.id, b]);
    const day = isoDate(Date.now() + 2 * DAY);
    const sendAfter = new Date(`${day}T00:00:00Z`);
    const created = await send(env, app, {
      include_aliases: { crm: ['crm-a', 'crm-b', 'crm-none'] },
      contents: { en: 'x' },
      delayed_option: 'timezone',
      send_after: `${day}T00:00:00Z`,
      delivery_time_of_day: '10:00AM',
    });
    expect(created.body.status).to.equal('scheduled');
    await fireDueSends({ pool: env.pool, bus: env.bus, now: sendAfter });
    const chunks = await env.pool.query('SELECT timezone, planned, entries FROM send_chunks WHERE send_id = $1 ORDER BY chunk', [created.body.id]);
    expect(chunks.rows.map((c) => [c.timezone, c.planned, c.entries])).to.deep.equal([
      ['Asia/Tokyo', 1, ['crm-b']], // 10:00 in Tokyo is 01:00Z
      ['Europe/Paris', 1, ['crm-a']], // 09:00Z
      [null, 1, ['crm-none']], // no install: send_after's offset, 10:00Z
    ]);
    await releaseDueChunks({ pool: env.pool, bus: env.bus, now: new Date(sendAfter.getTime() + DAY) });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'approved', total_recipients: 3, sent: 2, skipped: 1, remaining: 0 });
    expect(sim.stats().requests).to.equal(3);
  });

  it('delivery_time_of_day alone starts from when the send was accepted; an empty audience ends approved', async () => {
    const app = (await createTestApp(env.pool, 'zonetod', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 5, { prefix: 'b3' });
    await env.pool.query(`UPDATE subscriptions SET timezone = 'Asia/Kathmandu' WHERE app_id = $1`, [app.id]);
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'x' }, delayed_option: 'timezone', delivery_time_of_day: '21:45' });
    expect(created.body.status).to.equal('scheduled');
    const row = (await env.pool.query('SELECT created_at FROM sends WHERE id = $1', [created.body.id])).rows[0];
    // Fired by the sender's own duty (due at once) or here, whichever comes first.
    await fireDueSends({ pool: env.pool, bus: env.bus });
    await planned(created.body.id);
    const chunk = (await env.pool.query('SELECT timezone, not_before FROM send_chunks WHERE send_id = $1', [created.body.id])).rows[0];
    expect(chunk.timezone).to.equal('Asia/Kathmandu');
    expect(wall('Asia/Kathmandu', chunk.not_before).slice(11)).to.equal('21:45');
    expect(chunk.not_before.getTime()).to.be.at.least(row.created_at.getTime());
    expect(chunk.not_before.getTime()).to.be.below(row.created_at.getTime() + DAY);
    expect((await stats(env.pool, created.body.id)).status).to.equal('scheduled');
    // Let it go now (the release duty is global: no chunk of this test may wait for the next one's clock).
    expect(await releaseDueChunks({ pool: env.pool, bus: env.bus, now: chunk.not_before })).to.have.length(1);
    expect((await waitFinal(env.pool, created.body.id)).final).to.include({ status: 'approved', sent: 5 });

    const empty = (await createTestApp(env.pool, 'zoneempty', { key: main.key, teamId: main.teamId })).app;
    const none = await send(env, empty, { included_segments: ['All'], contents: { en: 'x' }, delayed_option: 'timezone', delivery_time_of_day: '21:45' });
    await fireDueSends({ pool: env.pool, bus: env.bus });
    const { final } = await waitFinal(env.pool, none.body.id);
    expect(await chunksOf(none.body.id)).to.deep.equal([]);
    expect(final).to.include({ status: 'approved', total_recipients: 0, remaining: 0 });
  });

  it('an overdue invoice stops a timezone send between zones: the zones not yet out are left out', async () => {
    const app = (await createTestApp(env.pool, 'zonepause', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 20, { prefix: 'd4' });
    await addDevices(env.pool, app.id, 30, { prefix: 'b4' });
    await env.pool.query(`UPDATE subscriptions SET timezone = 'Europe/Paris' WHERE app_id = $1 AND token LIKE 'b4%'`, [app.id]);
    const day = isoDate(Date.now() + 2 * DAY);
    const sendAfter = new Date(`${day}T12:00:00Z`);
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'x' }, delayed_option: 'timezone', send_after: `${day}T12:00:00Z` });
    await fireDueSends({ pool: env.pool, bus: env.bus, now: sendAfter });
    await releaseDueChunks({ pool: env.pool, bus: env.bus, now: sendAfter });
    await waitChunksDone(created.body.id, 1);
    await env.pool.query('UPDATE apps SET invoice_overdue = true WHERE id = $1', [app.id]);
    const { final } = await waitFinal(env.pool, created.body.id); // the sender's pause check stops it
    expect(final).to.include({ status: 'approved', total_recipients: 50, sent: 20, processed: 20, remaining: 0 });
    const left = await env.pool.query(`SELECT state, left_out FROM send_chunks WHERE send_id = $1 AND timezone = 'Europe/Paris'`, [created.body.id]);
    expect(left.rows).to.deep.equal([{ state: 'left_out', left_out: 30 }]);
    expect(await releaseDueChunks({ pool: env.pool, bus: env.bus, now: new Date(sendAfter.getTime() + 3 * DAY) })).to.deep.equal([]);
    expect(sim.deliveries().map((d) => d.token.slice(0, 2)).sort().join(","), JSON.stringify(sim.stats())).to.equal("d4,".repeat(20).slice(0, -1));
    expect(sim.stats().requests).to.equal(20);
  });
});
