// The planner (ARCHITECTURE "The life of a send", step 2): pages the audience snapshot of a send
// in keyset (seq) order into chunks of at most 500 devices and records their boundaries in
// send_chunks once, in one transaction. There is no plan job: a sender free to work takes the
// oldest unplanned send itself (`planNext`, FOR UPDATE SKIP LOCKED on the send row, so a sender
// that dies mid-plan rolls back and the next one plans it). A list send is one chunk, recorded in
// the accept (or firing) transaction. The recorded boundaries never change, so the chunks are the
// same whatever the audience did since.
import type { Pool, PoolClient, Queryable } from '../store/db.js';
import { inTransaction } from '../store/db.js';
import { getApp, type AppRecord } from '../apps/app-store.js';
import { audienceCondition, Params } from '../audience/filter.js';
import type { SendRequest } from '../send-model/request.js';
import { writeTransition } from '../send-model/transitions.js';
import { unplannedSql, type SendStatus } from '../send-model/states.js';
import { finishIfComplete, stopWithin } from './finish.js';
import { recordClosedSend } from '../events/record.js';
import { haltReason, type HaltReason } from '../apps/sendable.js';
import { isConditionTarget, isListTarget } from '../audience/target-kinds.js';
import { planActivityChunks } from '../live-activities/activity-audience.js';
import type { Lane } from './claim.js';

export const CHUNK_SIZE = 500;

export interface ChunkBounds {
  chunk: number;
  fromSeq: number | null;
  toSeq: number | null;
  planned: number;
}

export type PlanOutcome =
  | { kind: 'planned'; chunks: number }
  | { kind: 'finished' } // nothing to plan: planned already, over, or taken by another sender
  | { kind: 'stopped'; reason: HaltReason | 'credentials' };

interface SendToPlan {
  id: number;
  app_id: string;
  request: SendRequest;
  total_recipients: number;
  audience_max_seq: number | null;
}

/**
 * Keyset boundaries of a segment or tag audience: every CHUNK_SIZE-th seq, and the last one. At
 * most `cap` devices (the send's total_recipients: never deliver to more than were counted).
 */
export async function audienceBoundaries(db: Queryable, app: AppRecord, req: SendRequest, maxSeq: number, cap: number, size = CHUNK_SIZE): Promise<ChunkBounds[]> {
  if (cap <= 0) return [];
  const params = new Params([app.id, maxSeq, cap, size]);
  const condition = audienceCondition(app, req.target, params);
  const res = await db.query<{ seq: number; rn: number }>(
    `WITH a AS (SELECT seq FROM subscriptions s WHERE s.app_id = $1 AND s.subscribed AND s.seq <= $2 AND ${condition}
                 ORDER BY seq LIMIT $3),
          n AS (SELECT seq, row_number() OVER (ORDER BY seq) AS rn FROM a)
     SELECT seq, rn FROM n WHERE rn % $4 = 0
     UNION ALL
     SELECT max(seq), count(*) FROM a HAVING count(*) % $4 <> 0
     ORDER BY rn`,
    params.values,
  );
  const bounds: ChunkBounds[] = [];
  let from = 0;
  let before = 0;
  for (const row of res.rows) {
    const rn = Number(row.rn);
    bounds.push({ chunk: bounds.length, fromSeq: from, toSeq: Number(row.seq), planned: rn - before });
    from = Number(row.seq);
    before = rn;
  }
  return bounds;
}

export function listBounds(req: SendRequest): ChunkBounds[] {
  if (!isListTarget(req.target)) return [];
  const ids = req.target.ids.length;
  // Lists hold at most 500 ids (contract "Limits"), so a list send is one chunk.
  return ids ? [{ chunk: 0, fromSeq: null, toSeq: null, planned: ids }] : [];
}

/** Records the chunks of a list send (one) and chunks_total, in the caller's transaction. */
export async function recordListPlan(db: Queryable, sendId: number, req: SendRequest): Promise<void> {
  const bounds = listBounds(req);
  await insertChunks(db, sendId, bounds);
}

async function insertChunks(db: Queryable, sendId: number, bounds: ChunkBounds[]): Promise<void> {
  if (bounds.length) {
    await db.query(
      `INSERT INTO send_chunks (send_id, chunk, from_seq, to_seq, planned)
       SELECT $1, * FROM unnest($2::int[], $3::bigint[], $4::bigint[], $5::int[])
       ON CONFLICT DO NOTHING`,
      [sendId, bounds.map((b) => b.chunk), bounds.map((b) => b.fromSeq), bounds.map((b) => b.toSeq), bounds.map((b) => b.planned)],
    );
  }
  await db.query('UPDATE sends SET chunks_total = $2, updated_at = now() WHERE id = $1', [sendId, bounds.length]);
}

/** Plans one locked send in the caller's transaction: stops it when the app cannot send now. */
async function planLocked(db: PoolClient, send: SendToPlan): Promise<PlanOutcome> {
  const app = await getApp(db, send.app_id);
  const halted = haltReason(app);
  if (halted || !app) {
    await stopWithin(db, send.id, halted ?? 'disabled');
    return { kind: 'stopped', reason: halted ?? 'disabled' };
  }
  if (!app.hasCredentials) {
    await stopWithin(db, send.id, 'credentials', 'the app has no push key or certificate');
    return { kind: 'stopped', reason: 'credentials' };
  }
  const target = send.request.target;
  let chunks: number;
  if (target.kind === 'activity') {
    // A Live Activity's update or end: its tokens now, at most as many as the answer counted.
    chunks = await planActivityChunks(db, send.id, app.id, target.activityId, send.total_recipients, CHUNK_SIZE);
    await db.query('UPDATE sends SET chunks_total = $2, updated_at = now() WHERE id = $1', [send.id, chunks]);
  } else {
    const bounds = isConditionTarget(send.request.target)
      ? await audienceBoundaries(db, app, send.request, send.audience_max_seq ?? 0, send.total_recipients)
      : listBounds(send.request);
    await insertChunks(db, send.id, bounds);
    chunks = bounds.length;
  }
  // An audience that emptied since the estimate: nothing to deliver, everyone is skipped.
  if (!chunks) await finishIfComplete(db, send.id);
  return { kind: 'planned', chunks };
}

const UNPLANNED = `SELECT id, app_id, request, total_recipients, audience_max_seq FROM sends
  WHERE ${unplannedSql()} AND stopped IS NULL`;

/**
 * Plans the oldest unplanned send (of a Live Activity push, in that lane) no other sender is
 * planning; undefined when there is none. A
 * send whose planning throws becomes a draft saying why (transitions table, `plan_failed`), in a
 * transaction of its own, so it never blocks the sends behind it.
 */
export async function planNext(pool: Pool, lane: Lane = 'all'): Promise<{ sendId: number; outcome: PlanOutcome | { kind: 'failed'; error: string } } | undefined> {
  let sendId: number | undefined;
  try {
    return await inTransaction(pool, async (db) => {
      const res = await db.query<SendToPlan>(`${UNPLANNED}${lane === 'all' ? '' : ` AND kind = 'live_activity'`} ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`);
      const send = res.rows[0];
      if (!send) return undefined;
      sendId = send.id;
      return { sendId: send.id, outcome: await planLocked(db, send) };
    });
  } catch (error) {
    if (sendId === undefined) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    await inTransaction(pool, async (db) => {
      const res = await db.query<{ status: SendStatus }>(
        `SELECT status FROM sends WHERE id = $1 AND ${unplannedSql()} FOR UPDATE`,
        [sendId],
      );
      if (!res.rows[0]) return;
      await db.query('UPDATE sends SET left_out = total_recipients, chunks_total = 0 WHERE id = $1', [sendId]);
      if (await writeTransition(db, sendId!, res.rows[0].status, 'plan_failed', { detail })) await recordClosedSend(db, sendId!, null);
    });
    return { sendId, outcome: { kind: 'failed', error: detail } };
  }
}

/** Plans one given send if it still needs it (waits for a sender planning it now). Idempotent. */
export async function planSend(deps: { pool: Pool }, sendId: number): Promise<PlanOutcome> {
  return inTransaction(deps.pool, async (db) => {
    const res = await db.query<SendToPlan>(`${UNPLANNED} AND id = $1 FOR UPDATE`, [sendId]);
    return res.rows[0] ? planLocked(db, res.rows[0]) : { kind: 'finished' };
  });
}
