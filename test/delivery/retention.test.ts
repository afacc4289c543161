// Retention of finished sends against the real PostgreSQL: chunk rows go after chunkDays (the
// send keeps its counts), the send with its opens after finishedSendDays; unfinished and recent
// sends stay; a broadcast's rows go in bounded transactions, each reference to a send is indexed;
// the scheduler's leader applies it beside its rounds, which a slow prune does not hold up.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { silentLogger } from '../../core/log.js';
import { readNotification } from '../../core/send/report.js';
import { DEFAULT_RETENTION, pruneFinishedSends } from '../../core/send/retention.js';
import { deleteEventRecords, EVENT_RECORDS_PER_STATEMENT, ROWS_PER_STATEMENT } from '../../core/send/retention-statements.js';
import { startScheduler } from '../../core/send/scheduler.js';
import { addDevices, createTestApp, send, type TestApp } from './fixtures.js';
import { waitFor } from '../support/wait.js';

describe('delivery: retention of finished sends', function () {
  this.timeout(60_000);
  const env = useTestEnv();
  let t: TestApp;
  let ids: string[];

  before(async () => {
    t = await createTestApp(env.pool, 'retention');
    await addDevices(env.pool, t.app.id, 3, { prefix: 'aa', externalIdPrefix: 'u-' });
    ids = ['u-1', 'u-2', 'u-3'];
  });

  /** A list send (recorded with its chunk), finished `daysAgo` days ago (null: still running), with an open. */
  const sendFinished = async (daysAgo: number | null): Promise<number> => {
    const created = await send(env, t.app, { contents: { en: 'x' }, include_external_ids: ids });
    const id = created.body.id;
    await env.pool.query(
      `UPDATE sends SET status = CASE WHEN $2::int IS NULL THEN status ELSE 'approved' END,
              finished_at = CASE WHEN $2::int IS NULL THEN NULL ELSE now() - make_interval(days => $2::int) END,
              created_at = now() - interval '400 days', sent = 3 WHERE id = $1`,
      [id, daysAgo],
    );
    const sub = (await env.pool.query('SELECT id FROM subscriptions WHERE app_id = $1 LIMIT 1', [t.app.id])).rows[0].id;
    await env.pool.query('INSERT INTO opens (send_id, subscription_id) VALUES ($1, $2)', [id, sub]);
    return id;
  };
  const rows = async (id: number) => {
    const q = async (sql: string) => Number((await env.pool.query(sql, [id])).rows[0].n);
    return {
      send: await q('SELECT count(*) AS n FROM sends WHERE id = $1'),
      chunks: await q('SELECT count(*) AS n FROM send_chunks WHERE send_id = $1'),
      opens: await q('SELECT count(*) AS n FROM opens WHERE send_id = $1'),
    };
  };

  it('drops chunk rows after chunkDays and the send with its opens after finishedSendDays; keeps the rest', async () => {
    const old = await sendFinished(100);
    const middle = await sendFinished(40);
    const recent = await sendFinished(5);
    const running = await sendFinished(null);
    expect(await rows(middle)).to.deep.equal({ send: 1, chunks: 1, opens: 1 });

    const pruned = await pruneFinishedSends(env.pool, DEFAULT_RETENTION);
    // The chunk rows of the old and middle sends, then the old send with its open.
    expect(pruned).to.deep.equal({ chunks: 2, opens: 1, sends: 1, idempotencyKeys: 0, eventRecords: 0, done: true });
    expect(await rows(old)).to.deep.equal({ send: 0, chunks: 0, opens: 0 });
    expect(await rows(middle)).to.deep.equal({ send: 1, chunks: 0, opens: 1 });
    expect(await rows(recent)).to.deep.equal({ send: 1, chunks: 1, opens: 1 });
    expect(await rows(running)).to.deep.equal({ send: 1, chunks: 1, opens: 1 });
    // The send whose chunks went still answers with its counts.
    expect(await readNotification(env.pool, t.app.id, middle)).to.include({ id: middle, successful: 3 });
    expect(await readNotification(env.pool, t.app.id, old)).to.equal(undefined);

    const nothing = { chunks: 0, opens: 0, sends: 0, idempotencyKeys: 0, eventRecords: 0, done: true };
    expect(await pruneFinishedSends(env.pool, DEFAULT_RETENTION)).to.deep.equal(nothing);
    expect(await pruneFinishedSends(env.pool, { finishedSendDays: 0, chunkDays: 0 })).to.deep.equal(nothing);
  });

  it('sweeps idempotency records past their 24 hours, however many, and keeps the live ones', async () => {
    await env.pool.query(
      `INSERT INTO idempotency_keys (app_id, key, fingerprint, state, claim, claimed_at, expires_at)
       SELECT $1::uuid, 'old-' || i, '\\x00'::bytea, 'done', gen_random_uuid(), now(), now() - interval '1 minute' FROM generate_series(1, 12000) AS i
       UNION ALL SELECT $1::uuid, 'live-' || i, '\\x00'::bytea, 'done', gen_random_uuid(), now(), now() + interval '1 hour' FROM generate_series(1, 10) AS i`,
      [t.app.id],
    );
    const pruned = await pruneFinishedSends(env.pool, { finishedSendDays: 0, chunkDays: 0 });
    expect(pruned.idempotencyKeys).to.equal(12000); // three statements of 5,000 at most
    expect(Number((await env.pool.query('SELECT count(*) AS n FROM idempotency_keys WHERE app_id = $1', [t.app.id])).rows[0].n)).to.equal(10);
  });

  it('deletes a broadcast\'s chunk rows and opens in bounded transactions before the send', async () => {
    // A broadcast's worth of rows: more chunk rows and opens than two statements' bound.
    const big = await sendFinished(100);
    const many = ROWS_PER_STATEMENT * 2 + 1_000;
    await env.pool.query(`INSERT INTO send_chunks (send_id, chunk, planned, state) SELECT $1, i, 500, 'done' FROM generate_series(1, $2) AS i`, [big, many - 1]);
    await env.pool.query('INSERT INTO opens (send_id, subscription_id) SELECT $1, gen_random_uuid() FROM generate_series(1, $2)', [big, many - 1]);
    // Every row deleted or updated, directly or by a cascade, is counted against its transaction.
    await env.pool.query(`
      CREATE TABLE retention_probe (xid bigint NOT NULL);
      CREATE FUNCTION retention_probe() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN INSERT INTO retention_probe VALUES (txid_current()); RETURN NULL; END $$;
      CREATE TRIGGER probe AFTER DELETE ON send_chunks FOR EACH ROW EXECUTE FUNCTION retention_probe();
      CREATE TRIGGER probe AFTER DELETE ON opens FOR EACH ROW EXECUTE FUNCTION retention_probe();
      CREATE TRIGGER probe AFTER DELETE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION retention_probe();
      CREATE TRIGGER probe AFTER DELETE OR UPDATE ON sends FOR EACH ROW EXECUTE FUNCTION retention_probe();`);
    try {
      const pruned = await pruneFinishedSends(env.pool, DEFAULT_RETENTION);
      expect(await rows(big)).to.deep.equal({ send: 0, chunks: 0, opens: 0 });
      const largest = await env.pool.query('SELECT max(n)::int AS n, count(*)::int AS transactions FROM (SELECT count(*) AS n FROM retention_probe GROUP BY xid) t');
      expect(largest.rows[0].n, 'rows of the largest transaction').to.be.at.most(ROWS_PER_STATEMENT);
      expect(largest.rows[0].transactions).to.be.at.least(7); // three of chunk rows, the mark, three of opens, the send
      expect(pruned).to.deep.equal({ chunks: many, opens: many, sends: 1, idempotencyKeys: 0, eventRecords: 0, done: true });
    } finally {
      await env.pool.query(`
        DROP TRIGGER probe ON send_chunks; DROP TRIGGER probe ON opens; DROP TRIGGER probe ON idempotency_keys; DROP TRIGGER probe ON sends;
        DROP FUNCTION retention_probe(); DROP TABLE retention_probe;`);
    }
  });

  it('every row that references a send has an index to find it by, so deleting a send reads no table whole', async () => {
    const unindexed = await env.pool.query(
      `SELECT c.conrelid::regclass::text AS "table", a.attname AS "column"
         FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
        WHERE c.contype = 'f' AND c.confrelid = 'sends'::regclass
          AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.conrelid AND i.indkey[0] = c.conkey[1])`,
    );
    expect(unindexed.rows).to.deep.equal([]);
  });

  it('the scheduler\'s leader prunes with the retention it is given', async () => {
    const finished = await sendFinished(3);
    const scheduler = startScheduler({ pool: env.pool, logger: silentLogger(), retention: { finishedSendDays: 2, chunkDays: 1 } }, 100);
    try {
      await waitFor(`the prune of send ${finished}`, async () => (await rows(finished)).send === 0, 10_000, 100);
    } finally {
      await scheduler.stop();
    }
    expect(await rows(finished)).to.deep.equal({ send: 0, chunks: 0, opens: 0 });
  });
  it('the scheduler\'s rounds go on while its prune waits: a scheduled send fires meanwhile', async () => {
    const old = await sendFinished(3);
    // Another transaction holds one of the old send's chunk rows, so the prune's delete waits on it.
    const locker = await env.pool.connect();
    await locker.query('BEGIN');
    await locker.query('SELECT 1 FROM send_chunks WHERE send_id = $1 FOR UPDATE', [old]);
    const scheduler = startScheduler({ pool: env.pool, logger: silentLogger(), retention: { finishedSendDays: 2, chunkDays: 1 } }, 100);
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      await locker.query('ROLLBACK');
      locker.release();
    };
    try {
      const waiting = async () =>
        Number((await env.pool.query(
          `SELECT count(*) AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%DELETE FROM send_chunks%'`,
        )).rows[0].n);
      await waitFor('the prune waiting on the locked chunk row', async () => (await waiting()) > 0, 10_000, 50);
      expect(await waiting(), 'the prune waits on the locked row').to.equal(1);

      const later = new Date(Date.now() + 3_600_000).toISOString();
      const scheduled = (await send(env, t.app, { contents: { en: 'later' }, include_external_ids: ids, send_after: later })).body.id;
      await env.pool.query(`UPDATE sends SET send_after = now() - interval '1 second' WHERE id = $1`, [scheduled]);
      const status = async () => (await env.pool.query('SELECT status FROM sends WHERE id = $1', [scheduled])).rows[0].status as string;
      await waitFor(`scheduled send ${scheduled} fired`, async () => (await status()) !== 'scheduled', 10_000, 50);
      expect(await status(), 'fired while the prune still waits').to.be.oneOf(['queued', 'sending']);
      expect(await waiting()).to.equal(1);

      await release();
      await waitFor(`the prune of send ${old} once the row is released`, async () => (await rows(old)).send === 0, 10_000, 50);
      expect(await rows(old)).to.deep.equal({ send: 0, chunks: 0, opens: 0 });
    } finally {
      await release();
      await scheduler.stop();
    }
  });
  it('event records: all of an app with no destination go, delivered ones once past the replay window (7 days), undelivered ones after chunkDays; in statements of 1,000', async () => {
    const app = async (name: string) => (await createTestApp(env.pool, name)).app.id;
    const [twoDest, noDest, stuck] = [await app('evret-two'), await app('evret-none'), await app('evret-stuck')];
    const rec = async (appId: string, n: number, daysAgo = 0): Promise<number[]> =>
      (await env.pool.query<{ id: string }>(
        `INSERT INTO event_records (app_id, send_id, kind, body, recorded_at)
         SELECT $1, 1, 'notification.created', '{}', now() - make_interval(days => $3::int) FROM generate_series(1, $2::int) RETURNING id::text`,
        [appId, n, daysAgo],
      )).rows.map((r) => Number(r.id)).sort((x, y) => x - y);
    const dest = (appId: string, name: string, through: number, offset = 0) =>
      env.pool.query(`INSERT INTO event_destinations (app_id, name, url, secret, delivered_through, delivered_offset) VALUES ($1, $2, 'https://r.example.com/', '\\x00', $3, $4)`, [appId, name, through, offset]);
    const left = async (appId: string) => (await env.pool.query<{ id: string }>('SELECT id::text FROM event_records WHERE app_id = $1 ORDER BY id', [appId])).rows.map((r) => Number(r.id));

    const old = await rec(twoDest, 5, 8); // past the replay window
    const recent = await rec(twoDest, 2, 6); // delivered, within it: kept for a replay
    await dest(twoDest, 'fast', recent[1]);
    await dest(twoDest, 'slow', old[1], 3); // inside old[2]: old[2] is still needed
    const b = await rec(noDest, 2500); // more than two statements' worth
    const oldStuck = await rec(stuck, 2, 31);
    const edgeStuck = await rec(stuck, 1, 29);
    await dest(stuck, 'down', 0);

    expect(await deleteEventRecords(env.pool, 30, 7)).to.equal(EVENT_RECORDS_PER_STATEMENT); // one statement: 1,000 at most
    const pruned = await pruneFinishedSends(env.pool, DEFAULT_RETENTION);
    expect(pruned.eventRecords).to.equal(2 + 2500 + 2 - 1000);
    expect(await left(twoDest)).to.deep.equal([...old.slice(2), ...recent]);
    expect(await left(noDest)).to.deep.equal([]);
    expect(await left(stuck)).to.deep.equal(edgeStuck); // 31 days old: past chunkDays (30); 29: kept
    expect(b).to.have.length(2500);
    expect(oldStuck).to.have.length(2);
    // chunkDays 0: no age cap, the replay window stays 7 days.
    await rec(stuck, 1, 400);
    await env.pool.query(`UPDATE event_destinations SET delivered_through = $2 WHERE app_id = $1`, [twoDest, recent[1]]);
    expect((await pruneFinishedSends(env.pool, { finishedSendDays: 0, chunkDays: 0 })).eventRecords).to.equal(3);
    expect(await left(twoDest)).to.deep.equal(recent);
    expect(await left(stuck)).to.have.length(2);
    // chunkDays 3: the window shrinks to it.
    expect((await pruneFinishedSends(env.pool, { finishedSendDays: 0, chunkDays: 3 })).eventRecords).to.equal(2 + 1 + 1);
    expect(await left(twoDest)).to.deep.equal([]);
    await env.pool.query('DELETE FROM event_records WHERE app_id = $1', [stuck]);
  });

  it('undelivered records taken by the age cap are counted on each destination they were behind, less what it had of a record it was inside', async () => {
    const appId = (await createTestApp(env.pool, 'evret-drop')).app.id;
    const rec = async (kind: string, body: unknown, daysAgo: number): Promise<number> =>
      Number((await env.pool.query<{ id: string }>(
        `INSERT INTO event_records (app_id, send_id, kind, body, recorded_at) VALUES ($1, 1, $2, $3, now() - make_interval(days => $4::int)) RETURNING id::text`,
        [appId, kind, JSON.stringify(body), daysAgo],
      )).rows[0].id);
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const chunk = await rec('chunk', { chunk: 0, s: ids(3), f: [[ids(1)[0], 'BadDeviceToken']], u: [[ids(1)[0], 'Unregistered', 1]] }, 31); // 3 + 1 + 2 events
    await rec('notification.created', {}, 31); // 1 event
    const devices = await rec('device_events', { d: [['message.push.clicked', ids(1)[0], {}], ['message.push.clicked', null, {}]] }, 31); // 2 events
    const poison = await rec('chunk', { s: 'not a list' }, 31); // counted as a record, no events
    const young = await rec('notification.finished', {}, 1);
    const dest = (name: string, through: number, offset = 0) =>
      env.pool.query(`INSERT INTO event_destinations (app_id, name, url, secret, delivered_through, delivered_offset) VALUES ($1, $2, 'https://r.example.com/', '\\x00', $3, $4)`, [appId, name, through, offset]);
    await dest('behind', chunk - 1); // had none of them
    await dest('inside', chunk - 1, 4); // had 4 of the chunk's 6 events
    await dest('past', devices); // had all but the poison record
    const pruned = await pruneFinishedSends(env.pool, DEFAULT_RETENTION);
    expect(pruned.eventRecords).to.equal(4);
    const rows = (await env.pool.query(`SELECT name, dropped_records::int, dropped_events::int, last_dropped_at IS NOT NULL AS dated FROM event_destinations WHERE app_id = $1 ORDER BY name`, [appId])).rows;
    expect(rows).to.deep.equal([
      { name: 'behind', dropped_records: 4, dropped_events: 6 + 1 + 2, dated: true },
      { name: 'inside', dropped_records: 4, dropped_events: 2 + 1 + 2, dated: true },
      { name: 'past', dropped_records: 1, dropped_events: 0, dated: true },
    ]);
    expect((await env.pool.query('SELECT id::int FROM event_records WHERE app_id = $1', [appId])).rows).to.deep.equal([{ id: young }]);
    // Nothing more is due: the counts stay.
    await pruneFinishedSends(env.pool, DEFAULT_RETENTION);
    expect((await env.pool.query(`SELECT sum(dropped_records)::int AS n FROM event_destinations WHERE app_id = $1`, [appId])).rows[0].n).to.equal(9);
    expect(poison).to.be.above(devices);
  });
});
