// How long finished sends keep their rows, and the idempotency records' 24 hours
// (docs/operations.md "Retention"). A send's row holds its counts, which GET stats, the list call
// and the dashboard read; its chunk rows (one per 500 devices: 2,000 for a 1,000,000-device
// broadcast) serve only the delivery chart of its report once it has finished. So chunk rows go
// first, the send (with its opens) later. Unfinished sends are never touched.
//
// The work is sized by rows, not by sends (core/send/retention-statements.ts), and a call is
// bounded by time, not by a count of statements: it goes on until nothing is due or its budget
// is spent, so a backlog (a retention just shortened, a day at the api's 2,900 list sends a
// second) is worked off at the rate the database allows, and a call never runs for long.
import type { Pool } from '../store/db.js';
import { PgIdempotencyGuard } from '../idempotency/pg-guard.js';
import { replayWindowDays } from '../events/replay-window.js';
import { deleteEventRecords, deleteRowsOf, deleteSends, dueSends, EVENT_RECORDS_PER_STATEMENT, markChunksPruned, SENDS_PER_STATEMENT } from './retention-statements.js';

export interface Retention {
  /** Days a finished send is kept (0: forever). HERALD_FINISHED_SEND_RETENTION_DAYS. */
  finishedSendDays: number;
  /** Days a finished send keeps its chunk rows (0: forever). HERALD_CHUNK_RETENTION_DAYS. */
  chunkDays: number;
}

/** The defaults of HERALD_FINISHED_SEND_RETENTION_DAYS and HERALD_CHUNK_RETENTION_DAYS (core/config.ts). */
export const DEFAULT_RETENTION: Retention = { finishedSendDays: 90, chunkDays: 30 };

/**
 * How long one call may go on starting statements (the scheduler calls it once a minute). A list
 * send costs ~60 µs to lose its chunk row and ~35 µs to be deleted (docs/operations.md
 * "Retention"), so 20 s a minute keep up with ~3,500 list sends a second, above the api's 2,900.
 */
export const PRUNE_BUDGET_MS = 20_000;

/** Idempotency records past their 24 hours, 5,000 a statement (core/idempotency/pg-guard.ts). */
const IDEMPOTENCY_BATCH = 5_000;

export interface Pruned {
  chunks: number;
  opens: number;
  sends: number;
  idempotencyKeys: number;
  /** Event records no destination needs any more, or past the chunk retention (docs/events.md "Retention"). */
  eventRecords: number;
  /** False when the budget ran out (or `stop` said so) with rows still due: the next call goes on. */
  done: boolean;
}

/** One bounded piece of one kind of pruning; resolves false once nothing of its kind is due. */
type Step = () => Promise<boolean>;

export async function pruneFinishedSends(
  pool: Pool,
  retention: Retention,
  opts: { budgetMs?: number; stop?: () => boolean } = {},
): Promise<Pruned> {
  const deadline = Date.now() + (opts.budgetMs ?? PRUNE_BUDGET_MS);
  const more = () => Date.now() < deadline && !opts.stop?.();
  const pruned: Pruned = { chunks: 0, opens: 0, sends: 0, idempotencyKeys: 0, eventRecords: 0, done: false };
  const guard = new PgIdempotencyGuard(pool);

  const sweepKeys: Step = async () => {
    const n = await guard.sweepExpired(IDEMPOTENCY_BATCH);
    pruned.idempotencyKeys += n;
    return n === IDEMPOTENCY_BATCH;
  };
  // Event records hold the same facts as chunk rows (each device's outcome): kept no longer, even
  // for a destination that has not taken them (counted as dropped on its row); delivered ones are
  // kept for `herald events replay` (core/events/replay-window.ts).
  const pruneEvents: Step = async () => {
    const n = await deleteEventRecords(pool, retention.chunkDays, replayWindowDays(retention.chunkDays));
    pruned.eventRecords += n;
    return n === EVENT_RECORDS_PER_STATEMENT;
  };
  const pruneChunks: Step = async () => {
    const ids = await dueSends(pool, retention.chunkDays, { chunksLeft: true });
    if (!ids.length) return false;
    const chunks = await deleteRowsOf(pool, 'send_chunks', ids, more);
    pruned.chunks += chunks.rows;
    // Marked only once every chunk row of theirs is gone: a call stopped half-way picks them again.
    if (!chunks.done) return true;
    await markChunksPruned(pool, ids);
    return ids.length === SENDS_PER_STATEMENT;
  };
  const deleteFinished: Step = async () => {
    const ids = await dueSends(pool, retention.finishedSendDays, { chunksLeft: false });
    if (!ids.length) return false;
    const opens = await deleteRowsOf(pool, 'opens', ids, more);
    pruned.opens += opens.rows;
    if (!opens.done) return true;
    const chunks = await deleteRowsOf(pool, 'send_chunks', ids, more);
    pruned.chunks += chunks.rows;
    if (!chunks.done) return true;
    pruned.sends += await deleteSends(pool, ids, retention.finishedSendDays);
    return ids.length === SENDS_PER_STATEMENT;
  };

  const steps: Step[] = [sweepKeys, pruneEvents];
  if (retention.chunkDays > 0) steps.push(pruneChunks);
  if (retention.finishedSendDays > 0) steps.push(deleteFinished);
  // In turns, one step of each kind: a day of idempotency records does not hold back the sends.
  while (steps.length) {
    for (const step of [...steps]) {
      if (!(await step())) steps.splice(steps.indexOf(step), 1);
      if (!more()) break;
    }
    if (!more()) break;
  }
  pruned.done = steps.length === 0;
  return pruned;
}
