// The end of a send: the last chunk closes it (approved when the gateway accepted a device, else
// draft), or a stop (overdue invoice, refused credentials, cancel) closes it early. The status and
// the message come from the transitions table (core/send-model/transitions.ts, event `finished`).
//
// Counting rule kept here: processed (sent + failed + skipped) + remaining + left_out =
// total_recipients. At the end the devices that were in the estimate but not found at delivery
// (unsubscribed since) become `skipped`, or `left_out` when the send stopped early.
import type { Pool, PoolClient } from '../store/db.js';
import { inTransaction } from '../store/db.js';
import { writeTransition, type StopReason } from '../send-model/transitions.js';
import { deliveringSql, isRunningStatus, type FinalStatus, type RunningStatus, type SendStatus } from '../send-model/states.js';
import { recordNotificationEvent } from '../events/record.js';
import { haltReasonSql, sendableSql } from '../apps/sendable.js';

export type { StopReason } from '../send-model/transitions.js';

export interface FinishedSend {
  sendId: number;
  status: FinalStatus;
  sent: number;
  failed: number;
  skipped: number;
  leftOut: number;
  stopped: StopReason | null;
}

interface LockedSend {
  status: RunningStatus;
  total_recipients: number;
  sent: number;
  failed: number;
  skipped: number;
  left_out: number;
  chunks_total: number | null;
  chunks_done: number;
  stopped: StopReason | null;
  stop_detail: string | null;
}

async function lockSend(db: PoolClient, sendId: number): Promise<LockedSend | undefined> {
  const res = await db.query<Omit<LockedSend, 'status'> & { status: SendStatus }>(
    `SELECT status, total_recipients, sent, failed, skipped, left_out, chunks_total, chunks_done, stopped, stop_detail
       FROM sends WHERE id = $1 FOR UPDATE`,
    [sendId],
  );
  const s = res.rows[0];
  // A send not yet over: queued, sending, or scheduled (a timezone send delivering, or one not
  // yet fired: a cancel stops it at once, since it has no chunk in flight).
  return s && isRunningStatus(s.status) ? (s as LockedSend) : undefined;
}

/**
 * Closes the send if nothing is left to do. Runs inside the caller's transaction; takes the send's
 * row lock (the caller usually holds it already). Returns the closed send, or undefined.
 */
export async function finishIfComplete(db: PoolClient, sendId: number): Promise<FinishedSend | undefined> {
  const s = await lockSend(db, sendId);
  if (!s) return undefined;
  const complete = s.chunks_total !== null ? s.chunks_done >= s.chunks_total : s.stopped !== null;
  if (!complete) return undefined;
  const gap = Math.max(0, s.total_recipients - s.sent - s.failed - s.skipped - s.left_out);
  const skipped = s.stopped ? s.skipped : s.skipped + gap;
  const leftOut = s.stopped ? s.left_out + gap : s.left_out;
  await db.query('UPDATE sends SET skipped = $2, left_out = $3 WHERE id = $1', [sendId, skipped, leftOut]);
  const step = await writeTransition(db, sendId, s.status, 'finished', {
    sent: s.sent,
    failed: s.failed,
    skipped,
    leftOut,
    stopped: s.stopped,
    detail: s.stop_detail,
  });
  if (!step) return undefined;
  await recordNotificationEvent(db, sendId, 'notification.finished', { status: step.to, sent: s.sent, failed: s.failed, skipped, left_out: leftOut, stopped: s.stopped });
  return { sendId, status: step.to as FinalStatus, sent: s.sent, failed: s.failed, skipped, leftOut, stopped: s.stopped };
}

/**
 * Stops a send early: chunks not started (and chunks whose holder's lease ran out) are left out,
 * never sent, even later; chunks in flight finish and are counted; the send closes when the last
 * of them is recorded (at once when none is in flight). Idempotent: the scheduler's sweep calls it
 * again for a stopped send until it has closed.
 */
export async function stopSend(pool: Pool, sendId: number, reason: StopReason, detail?: string): Promise<FinishedSend | undefined> {
  return inTransaction(pool, (db) => stopWithin(db, sendId, reason, detail));
}

/** stopSend inside the caller's transaction (recordChunk uses it when a chunk hit refused credentials). */
export async function stopWithin(db: PoolClient, sendId: number, reason: StopReason, detail?: string): Promise<FinishedSend | undefined> {
  const s = await lockSend(db, sendId);
  if (!s) return undefined;
  // The pause is a fact of its own for the app's systems (its `.finished` follows when the chunks in
  // flight are recorded); reported once, by the stop that paused the send, not by the sweep's
  // repeats nor by a cancel or a credentials stop (their own event, or `.finished`'s `stopped`).
  if (reason === 'paused' && s.stopped === null) await recordNotificationEvent(db, sendId, 'notification.paused', { status: s.status });
  const left = await db.query<{ planned: number }>(
    `UPDATE send_chunks SET state = 'left_out', left_out = planned, lease_until = NULL, finished_at = now()
      WHERE send_id = $1 AND (state = 'planned' OR (state = 'working' AND lease_until < clock_timestamp())) RETURNING planned`,
    [sendId],
  );
  const devices = left.rows.reduce((sum, r) => sum + r.planned, 0);
  await db.query(
    `UPDATE sends SET stopped = coalesce(stopped, $2), stop_detail = coalesce(stop_detail, $5),
                      chunks_done = chunks_done + $3, left_out = left_out + $4, updated_at = now() WHERE id = $1`,
    [sendId, reason, left.rowCount ?? 0, devices, detail ?? null],
  );
  return finishIfComplete(db, sendId);
}

/**
 * The pause sweep (a duty of the scheduler leader): stops the running sends of apps that may not
 * send now (core/apps/sendable.ts: overdue, deleted or disabled), and closes stopped sends whose
 * last chunks' holders died (their leases ran out).
 */
export async function stopOverdueSends(pool: Pool, appId?: string): Promise<number[]> {
  const res = await pool.query<{ id: number; stopped: StopReason | null; halted: StopReason | null }>(
    `SELECT s.id, s.stopped, ${haltReasonSql('a')} AS halted FROM sends s JOIN apps a ON a.id = s.app_id
      WHERE ${deliveringSql('s')}
        AND ((NOT ${sendableSql('a')} AND s.stopped IS NULL) OR s.stopped IS NOT NULL) AND ($1::uuid IS NULL OR a.id = $1)`,
    [appId ?? null],
  );
  const stopped: number[] = [];
  for (const { id, stopped: already, halted } of res.rows) {
    await stopSend(pool, id, already ?? halted ?? 'paused');
    if (!already) stopped.push(id);
  }
  return stopped;
}

export { inTransaction };
