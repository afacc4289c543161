// The sender in-process against the real PostgreSQL, Redis, NATS JetStream and the APNs
// simulator: outcomes, languages, lists, exact counts, credentials, pause, throttle, schedules.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { startApnsSim, type ApnsSim } from '../../apns-sim/index.js';
import type { Sender } from '../../sender/index.js';
import { planSend } from '../../core/delivery/planner.js';
import { recordChunk } from '../../core/delivery/chunks.js';
import { setInvoiceOverdue } from '../../core/apps/app-store.js';
import { fireDueSends } from '../../core/send/fire-due.js';
import { addDevices, createTestApp, send, stats, token, waitFinal, type TestApp, startTestSender } from './fixtures.js';
import { inTransaction, type Queryable } from '../../core/store/db.js';
import { waitFor } from '../support/wait.js';

describe('delivery: sender against the simulator', function () {
  this.timeout(120_000);
  const env = useTestEnv();
  let sim: ApnsSim;
  let sender: Sender;
  let main: TestApp;

  before(async () => {
    main = await createTestApp(env.pool, 'main');
    sim = await startApnsSim({
      keys: [{ keyId: main.key.keyId, teamId: main.teamId, publicKey: main.key.publicKeyPem }],
      rules: [
        { prefix: 'bad0', status: 400, reason: 'BadDeviceToken' },
        { prefix: 'dead', status: 410 },
        { prefix: 'b0b0', status: 429, times: 1 },
        { prefix: '5e5e', status: 503 },
        { prefix: 'c0c0', action: 'reset-stream', times: 2 },
        { prefix: '5104', delayMs: 200 },
      ],
    });
    // A short gateway hold: the 5e5e devices, answered 503 alone once the rest of their chunk is
    // decided, look like an outage from their chunk and are held until it ends (retry-rounds.ts).
    sender = await startTestSender(env, sim, { gatewayHoldMs: 2000 });
  });

  after(async () => {
    await sender?.stop();
    await sim?.close();
  });

  beforeEach(() => sim.reset());

  it('delivers a segment send in chunks of 500 with exact counts, each device in its language', async () => {
    const app = (await createTestApp(env.pool, 'langs', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 700, { prefix: 'e1', language: 'en' });
    await addDevices(env.pool, app.id, 400, { prefix: 'f1', language: 'fr' });
    await addDevices(env.pool, app.id, 300, { prefix: 'b1', language: 'pt_BR' });
    await addDevices(env.pool, app.id, 100, { prefix: 'd1', language: null });
    const created = await send(env, app, {
      included_segments: ['Subscribed Users'],
      contents: { en: 'Hello', fr: 'Bonjour', 'pt-BR': 'Olá' },
      headings: { en: 'Hi' },
    });
    expect(created.httpStatus).to.equal(202);
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'approved', total_recipients: 1500, processed: 1500, remaining: 0, sent: 1500, failed: 0, skipped: 0 });
    const chunks = await env.pool.query('SELECT count(*)::int AS n, max(planned) AS biggest FROM send_chunks WHERE send_id = $1', [created.body.id]);
    expect(chunks.rows[0]).to.deep.equal({ n: 3, biggest: 500 });
    const bodyOf = (t: string) => JSON.parse(sim.deliveries(t)[0].payload).aps.alert.body;
    expect(bodyOf(token('e1', 3))).to.equal('Hello');
    expect(bodyOf(token('f1', 3))).to.equal('Bonjour');
    expect(bodyOf(token('b1', 3))).to.equal('Olá');
    expect(bodyOf(token('d1', 3))).to.equal('Hello');
    expect(JSON.parse(sim.deliveries(token('e1', 3))[0].payload).custom.i).to.equal(String(created.body.id));
    expect(sim.stats().requests).to.equal(1500);
  });

  it('maps each APNs answer by the outcome table: failed, 410 and BadDeviceToken unsubscribe, retries then ok or failed', async () => {
    const app = (await createTestApp(env.pool, 'outcomes', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 300, { prefix: 'a0' });
    await addDevices(env.pool, app.id, 20, { prefix: 'bad0' });
    const gone = await addDevices(env.pool, app.id, 15, { prefix: 'dead' });
    const flaky = await addDevices(env.pool, app.id, 10, { prefix: 'b0b0' });
    const down = await addDevices(env.pool, app.id, 5, { prefix: '5e5e' });
    const reset = await addDevices(env.pool, app.id, 5, { prefix: 'c0c0' });
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'x' } });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'approved', total_recipients: 355, processed: 355, remaining: 0, sent: 315, failed: 40, skipped: 0 });
    expect(sim.attempts(flaky[0])).to.equal(2); // 429 once, then 200
    expect(sim.attempts(reset[0])).to.equal(3); // two resets, then 200
    // 503 in the 3 rounds that decided others spent 3 attempts; alone, it was held (no attempt
    // spent: an outage, as far as its chunk can tell) until the hold ended, then failed.
    expect(sim.attempts(down[0])).to.be.at.least(4);
    expect(sim.attempts(gone[0])).to.equal(1); // 410 is final
    const unsubscribed = await env.pool.query(
      'SELECT unsubscribed_reason AS reason, count(*)::int AS n FROM subscriptions WHERE app_id = $1 AND NOT subscribed GROUP BY 1 ORDER BY 1',
      [app.id],
    );
    expect(unsubscribed.rows).to.deep.equal([{ reason: 'BadDeviceToken', n: 20 }, { reason: 'Unregistered', n: 15 }]);
    // The next send leaves the unsubscribed devices out of its audience.
    const again = await send(env, app, { included_segments: ['All'], contents: { en: 'y' } });
    expect(again.body.estimate).to.equal(320);
    await waitFinal(env.pool, again.body.id); // delivered here, not during the next test
  });

  it('ends draft when the gateway accepts none of the devices', async () => {
    const app = (await createTestApp(env.pool, 'nobody', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 30, { prefix: 'bad0' });
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'x' } });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'draft', processed: 30, remaining: 0, sent: 0, failed: 30 });
  });

  it('list sends are one chunk: sending → approved; ids with no subscribed install are skipped', async () => {
    const app = (await createTestApp(env.pool, 'lists', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 5, { prefix: 'ab', externalIdPrefix: 'user-' });
    await addDevices(env.pool, app.id, 2, { prefix: 'ac', externalIdPrefix: 'user-' }); // user-1, user-2 have two installs
    const ids = (await env.pool.query('SELECT id FROM subscriptions WHERE app_id = $1 ORDER BY seq LIMIT 3', [app.id])).rows.map((r) => r.id);
    await env.pool.query('UPDATE subscriptions SET subscribed = false WHERE id = $1', [ids[2]]);
    const bySub = await send(env, app, { include_subscription_ids: [...ids, '00000000-0000-4000-8000-000000000000'], contents: { en: 'x' } });
    expect(bySub.body.status).to.equal('sending');
    const r1 = await waitFinal(env.pool, bySub.body.id);
    expect(r1.final).to.include({ status: 'approved', total_recipients: 4, sent: 2, failed: 0, skipped: 2, remaining: 0 });
    const byExt = await send(env, app, { include_external_ids: ['user-1', 'user-2', 'user-5', 'nobody'], contents: { en: 'x' } });
    const r2 = await waitFinal(env.pool, byExt.body.id);
    expect(r2.final).to.include({ status: 'approved', total_recipients: 4, sent: 3, skipped: 1 });
    expect(sim.attempts(token('ac', 0))).to.equal(1); // every install of user-1 got it
    expect(sim.attempts(token('ab', 0))).to.equal(2); // once per send
  });

  it('a replan produces the same chunks, and a chunk recorded twice is counted once', async () => {
    const app = (await createTestApp(env.pool, 'replan', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 1234);
    // No sender runs during this test: the plan and the records are this test's alone.
    await sender.stop();
    await setInvoiceOverdue(env.pool, app.id, false);
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'x' } });
    await planSend({ pool: env.pool }, created.body.id);
    const first = (await env.pool.query('SELECT chunk, from_seq, to_seq, planned FROM send_chunks WHERE send_id = $1 ORDER BY chunk', [created.body.id])).rows;
    await env.pool.query(`UPDATE subscriptions SET subscribed = false WHERE app_id = $1 AND seq % 7 = 0`, [app.id]);
    await planSend({ pool: env.pool }, created.body.id);
    const second = (await env.pool.query('SELECT chunk, from_seq, to_seq, planned FROM send_chunks WHERE send_id = $1 ORDER BY chunk', [created.body.id])).rows;
    expect(second).to.deep.equal(first);
    expect(first.map((c) => c.planned)).to.deep.equal([500, 500, 234]);
    const outcome = { sent: 400, failed: 100, skipped: 0, leftOut: 0, unsubscribe: [] };
    expect((await recordChunk(env.pool, { appId: app.id, sendId: created.body.id, chunk: 0, outcome })).counted).to.equal(true);
    expect((await recordChunk(env.pool, { appId: app.id, sendId: created.body.id, chunk: 0, outcome })).counted).to.equal(false);
    const s = await stats(env.pool, created.body.id);
    expect(s).to.include({ status: 'sending', sent: 400, failed: 100, processed: 500, remaining: 734 });
    await env.pool.query("UPDATE sends SET stopped = 'paused' WHERE id = $1", [created.body.id]); // not for the next sender
    sender = await startTestSender(env, sim);
  });

  it('an audience that shrank before delivery counts the difference as skipped', async () => {
    const app = (await createTestApp(env.pool, 'shrink', { key: main.key, teamId: main.teamId })).app;
    const tokens = await addDevices(env.pool, app.id, 600, { prefix: '5104' }); // slow answers: the send is still running
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'x' } });
    await env.pool.query(`UPDATE subscriptions SET subscribed = false WHERE app_id = $1 AND seq IN (SELECT seq FROM subscriptions WHERE app_id = $1 ORDER BY seq DESC LIMIT 50)`, [app.id]);
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final.total_recipients).to.equal(600);
    expect(final.processed).to.equal(600);
    expect(final.sent + final.skipped).to.equal(600);
    // Deliveries of this app's devices only (another test's send may still be finishing).
    expect(tokens.reduce((n, t) => n + sim.deliveries(t).length, 0)).to.equal(final.sent);
  });

  it('refused credentials end the send draft with a clear message, nothing counted twice', async () => {
    const stranger = await createTestApp(env.pool, 'stranger'); // its key is not one the simulator accepts
    await addDevices(env.pool, stranger.app.id, 1200, { prefix: 'cc' });
    const created = await send(env, stranger.app, { included_segments: ['All'], contents: { en: 'x' } });
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'draft', sent: 0, remaining: 0 });
    const row = (await env.pool.query('SELECT message, left_out, stopped FROM sends WHERE id = $1', [created.body.id])).rows[0];
    expect(row.stopped).to.equal('credentials');
    expect(row.message).to.match(/refused the app's push key or certificate \(InvalidProviderToken\)/);
    expect(final.processed + row.left_out).to.equal(1200);
  });

  it('an overdue invoice pauses delivery: no new chunk, the send ends with remaining 0, never resumed', async () => {
    const app = (await createTestApp(env.pool, 'overdue', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 6000, { prefix: '5104' }); // 200 ms per answer: ~12 chunks of 500
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'x' } });
    await waitFor('a device of the send reached', async () => (await stats(env.pool, created.body.id)).sent > 0, 10_000, 25);
    // The pause, and the chunks taken by then, in one transaction that holds every chunk row of
    // the send (planned at once, before the first claim): a claim meanwhile skips them (SKIP
    // LOCKED) or has committed before the look, so a chunk claimed later is one the pause let start.
    const claimedChunks = async (db: Queryable) =>
      (await db.query('SELECT chunk FROM send_chunks WHERE send_id = $1 AND claims > 0 ORDER BY chunk', [created.body.id])).rows.map((r) => r.chunk as number);
    const claimedAtPause = await inTransaction(env.pool, async (db) => {
      await db.query('SELECT 1 FROM send_chunks WHERE send_id = $1 FOR UPDATE', [created.body.id]);
      await setInvoiceOverdue(db, app.id, true);
      return claimedChunks(db);
    });
    const { final } = await waitFinal(env.pool, created.body.id);
    const requestsAtEnd = sim.stats().requests;
    const row = (await env.pool.query('SELECT left_out, stopped FROM sends WHERE id = $1', [created.body.id])).rows[0];
    expect(final.status).to.equal('approved');
    expect(final.remaining).to.equal(0);
    expect(row.stopped).to.equal('paused');
    expect(row.left_out).to.be.greaterThan(0);
    expect(final.processed + row.left_out).to.equal(6000);
    expect(final.sent).to.equal(requestsAtEnd);
    // No chunk started after the pause was recorded (chunks in flight then may finish).
    expect(await claimedChunks(env.pool), 'chunks claimed by the end vs by the pause').to.deep.equal(claimedAtPause);
    expect(claimedAtPause.length, 'chunks claimed by the pause').to.be.below(12);
    // Never resumed: no chunk of it is claimable any more, and once the invoice is paid a new send
    // of the app goes through while this one's count stays where it ended.
    const open = await env.pool.query(`SELECT count(*)::int AS n FROM send_chunks WHERE send_id = $1 AND state IN ('planned', 'working')`, [created.body.id]);
    expect(open.rows[0].n).to.equal(0);
    await setInvoiceOverdue(env.pool, app.id, false);
    const two = (await env.pool.query('SELECT id FROM subscriptions WHERE app_id = $1 ORDER BY token LIMIT 2', [app.id])).rows.map((r) => r.id);
    const after = await send(env, app, { include_subscription_ids: two, contents: { en: 'after' } });
    expect((await waitFinal(env.pool, after.body.id)).final.sent).to.equal(2);
    expect(sim.stats().requests, 'only the new send reached Apple').to.equal(requestsAtEnd + 2);
    expect(await stats(env.pool, created.body.id)).to.deep.equal(final);
  });

  it('throttle_rate_per_minute: never faster than the rate (lower bound only)', async () => {
    const app = (await createTestApp(env.pool, 'throttle', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 2000);
    const rate = 30_000; // 500 a second: one chunk of 500 a second after the first
    const started = Date.now();
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'x' }, throttle_rate_per_minute: rate });
    const { final } = await waitFinal(env.pool, created.body.id);
    const elapsedMs = Date.now() - started;
    expect(final).to.include({ status: 'approved', sent: 2000 });
    // At most rate × t + 500 devices start in time t.
    expect(elapsedMs).to.be.at.least(((2000 - 500) / rate) * 60_000);
  });

  it('fires a due scheduled send: audience measured again, queued, then delivered', async () => {
    const app = (await createTestApp(env.pool, 'scheduled', { key: main.key, teamId: main.teamId })).app;
    await addDevices(env.pool, app.id, 10);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const created = await send(env, app, { included_segments: ['All'], contents: { en: 'x' }, send_after: later });
    expect(created.body.status).to.equal('scheduled');
    await addDevices(env.pool, app.id, 5, { prefix: 'b' });
    await env.pool.query(`UPDATE sends SET send_after = now() - interval '1 second' WHERE id = $1`, [created.body.id]);
    const { final } = await waitFinal(env.pool, created.body.id);
    expect(final).to.include({ status: 'approved', total_recipients: 15, sent: 15 });
    expect(await fireDueSends({ pool: env.pool })).to.deep.equal([]);
  });
});
