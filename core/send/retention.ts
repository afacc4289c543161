// How long finished sends keep their rows, and the idempotency records' 24 hours
// (docs/operations.md "Retention"). A send's row holds its
// counts, which GET stats, the list call and the dashboard read; its chunk rows (one per 500
// devices: 2,000 for a 1,000,000-device broadcast) serve only the delivery chart of its report
// once it has finished. So chunk rows go first, the send (with its opens) later. Unfinished
// sends are never touched. The scheduler's leader prunes, in batches that hold no lock for long.
import type { Pool } from '../store/db.js';
import { PgIdempotencyGuard } from '../idempotency/pg-guard.js';

export interface Retention {
  /** Days a finished send is kept (0: forever). HERALD_FINISHED_SEND_RETENTION_DAYS. */
  finishedSendDays: number;
  /** Days a finished send keeps its chunk rows (0: forever). HERALD_CHUNK_RETENTION_DAYS. */
  chunkDays: number;
}

export const DEFAULT_RETENTION: Retention = { finishedSendDays: 90, chunkDays: 30 };

/** Sends per statement: a broadcast of 1,000,000 devices has 2,000 chunk rows. */
const SENDS_PER_BATCH = 20;
/** Statements per call: a backlog (a retention just shortened) is worked off over several rounds. */
const MAX_BATCHES = 50;

/** Idempotency records past their 24 hours, 5,000 a statement (core/idempotency/pg-guard.ts). */
const IDEMPOTENCY_BATCH = 5_000;

export async function pruneFinishedSends(pool: Pool, retention: Retention): Promise<{ chunks: number; sends: number; idempotencyKeys: number }> {
  const pruned = { chunks: 0, sends: 0, idempotencyKeys: 0 };
  // Up to 250,000 a minute: more than the api's list-send ceiling on this machine (2,900/s) makes.
  const guard = new PgIdempotencyGuard(pool);
  for (let i = 0; i < MAX_BATCHES; i++) {
    const n = await guard.sweepExpired(IDEMPOTENCY_BATCH);
    pruned.idempotencyKeys += n;
    if (n < IDEMPOTENCY_BATCH) break;
  }
  for (let i = 0; retention.chunkDays > 0 && i < MAX_BATCHES; i++) {
    const res = await pool.query<{ sends: number; chunks: number }>(
      `WITH picked AS (
         SELECT id FROM sends WHERE finished_at IS NOT NULL AND chunks_pruned_at IS NULL AND finished_at < now() - make_interval(days => $1)
          ORDER BY finished_at LIMIT $2 FOR UPDATE SKIP LOCKED
       ), gone AS (
         DELETE FROM send_chunks c USING picked p WHERE c.send_id = p.id RETURNING 1
       ), marked AS (
         UPDATE sends s SET chunks_pruned_at = now() FROM picked p WHERE s.id = p.id RETURNING 1
       )
       SELECT (SELECT count(*) FROM marked)::int AS sends, (SELECT count(*) FROM gone)::int AS chunks`,
      [retention.chunkDays, SENDS_PER_BATCH],
    );
    pruned.chunks += res.rows[0].chunks;
    if (res.rows[0].sends < SENDS_PER_BATCH) break;
  }
  for (let i = 0; retention.finishedSendDays > 0 && i < MAX_BATCHES; i++) {
    // ON DELETE CASCADE takes the send's chunks, opens and idempotency record with it.
    const res = await pool.query(
      `DELETE FROM sends WHERE id = ANY (ARRAY(
         SELECT id FROM sends WHERE finished_at IS NOT NULL AND finished_at < now() - make_interval(days => $1)
          ORDER BY finished_at LIMIT $2))`,
      [retention.finishedSendDays, SENDS_PER_BATCH * 5],
    );
    pruned.sends += res.rowCount ?? 0;
    if ((res.rowCount ?? 0) < SENDS_PER_BATCH * 5) break;
  }
  return pruned;
}
