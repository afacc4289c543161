// Retention of finished sends against the real PostgreSQL: chunk rows go after chunkDays (the
// send keeps its counts), the send with its opens after finishedSendDays; unfinished and recent
// sends stay; the scheduler's leader applies it.
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { silentLogger } from '../../core/log.js';
import { readNotification } from '../../core/send/report.js';
import { DEFAULT_RETENTION, pruneFinishedSends } from '../../core/send/retention.js';
import { startScheduler } from '../../core/send/scheduler.js';
import { addDevices, createTestApp, send, type TestApp } from './fixtures.js';

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
    expect(pruned).to.deep.equal({ chunks: 2, sends: 1, idempotencyKeys: 0 }); // the chunk rows of the old and middle sends, then the old send
    expect(await rows(old)).to.deep.equal({ send: 0, chunks: 0, opens: 0 });
    expect(await rows(middle)).to.deep.equal({ send: 1, chunks: 0, opens: 1 });
    expect(await rows(recent)).to.deep.equal({ send: 1, chunks: 1, opens: 1 });
    expect(await rows(running)).to.deep.equal({ send: 1, chunks: 1, opens: 1 });
    // The send whose chunks went still answers with its counts.
    expect(await readNotification(env.pool, t.app.id, middle)).to.include({ id: middle, successful: 3 });
    expect(await readNotification(env.pool, t.app.id, old)).to.equal(undefined);

    expect(await pruneFinishedSends(env.pool, DEFAULT_RETENTION)).to.deep.equal({ chunks: 0, sends: 0, idempotencyKeys: 0 });
    expect(await pruneFinishedSends(env.pool, { finishedSendDays: 0, chunkDays: 0 })).to.deep.equal({ chunks: 0, sends: 0, idempotencyKeys: 0 });
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

  it('the scheduler\'s leader prunes with the retention it is given', async () => {
    const finished = await sendFinished(3);
    const scheduler = startScheduler({ pool: env.pool, logger: silentLogger(), retention: { finishedSendDays: 2, chunkDays: 1 } }, 100);
    try {
      for (let i = 0; i < 100 && (await rows(finished)).send === 1; i++) await new Promise((r) => setTimeout(r, 100));
    } finally {
      await scheduler.stop();
    }
    expect(await rows(finished)).to.deep.equal({ send: 0, chunks: 0, opens: 0 });
  });
});
