// The end of a send: the last chunk closes it (approved when the gateway accepted a device, else
// draft), or a stop (overdue invoice, refused credentials) closes it early. Contract "States and
// transitions"; ARCHITECTURE "The life of a send", step 4.
//
// Counting rule kept here: processed (sent + failed + skipped) + remaining + left_out =
// total_recipients. At the end the devices that were in the estimate but not found at delivery
// (unsubscribed since) become `skipped`, or `left_out` when the send stopped early.
import type { Pool, PoolClient } from '../store/db.js';
import { inTransaction } from '../store/db.js';
import { enqueue } from '../bus/outbox.js';
import { SUBJECTS } from '../bus/subjects.js';

/** Why a send stopped early; `canceled` is written only by core/send/cancel.ts. */
export type StopReason = 'paused' | 'credentials' | 'canceled';

export interface FinishedSend {
  sendId: number;
  status: 'approved' | 'draft';
  sent: number;
  failed: number;
  skipped: number;
  leftOut: number;
  stopped: StopReason | null;
}

/** The event the controller's mirror and metrics read when a send ends. */
export interface SendFinishedEvent extends FinishedSend {
  appId: string;
  totalRecipients: number;
}

const n = (count: number) => `${count.toLocaleString('en-US')} device${count === 1 ? '' : 's'}`;

export function finishMessage(f: FinishedSend, detail?: string): string {
  if (f.stopped === 'paused') {
    const reached = f.sent ? `Sent to ${n(f.sent)} before delivery` : 'Delivery';
    return `${reached} paused: the app has an invoice past its due date. ${n(f.leftOut)} were not sent and will not be.`;
  }
  if (f.stopped === 'canceled') {
    const reached = f.sent ? `Sent to ${n(f.sent)} before it was canceled` : 'Canceled before any device was reached';
    return `${reached}; ${n(f.leftOut)} were not sent and will not be.`;
  }
  if (f.stopped === 'credentials') {
    const why = detail ? ` (${detail})` : '';
    const reached = f.sent ? `Sent to ${n(f.sent)}, then stopped` : 'Saved as a draft and not sent';
    return `${reached}: Apple's gateway refused the app's push key or certificate${why}. Fix the app's credentials and send again.`;
  }
  if (f.status === 'draft') return `Not sent: the gateway accepted none of the devices (${f.failed} failed, ${f.skipped} skipped).`;
  return `Sent to ${n(f.sent)}; ${f.failed} failed, ${f.skipped} skipped.`;
}

interface LockedSend {
  app_id: string;
  status: string;
  total_recipients: number;
  sent: number;
  failed: number;
  skipped: number;
  left_out: number;
  chunks_total: number | null;
  chunks_done: number;
  stopped: StopReason | null;
  message: string;
}

/** A send still delivering: queued or sending, or a timezone send planned while still `scheduled`. */
const running = (s: LockedSend) => s.status === 'queued' || s.status === 'sending' || (s.status === 'scheduled' && s.chunks_total !== null);

async function lockSend(db: PoolClient, sendId: number): Promise<LockedSend | undefined> {
  const res = await db.query<LockedSend>(
    `SELECT app_id, status, total_recipients, sent, failed, skipped, left_out, chunks_total, chunks_done, stopped, message
       FROM sends WHERE id = $1 FOR UPDATE`,
    [sendId],
  );
  return res.rows[0];
}

/**
 * Closes the send if nothing is left to do. Runs inside the caller's transaction; takes the send's
 * row lock (the caller usually holds it already). Returns the closed send, or undefined.
 */
export async function finishIfComplete(db: PoolClient, sendId: number, detail?: string): Promise<FinishedSend | undefined> {
  const s = await lockSend(db, sendId);
  if (!s || !running(s)) return undefined;
  const planned = s.chunks_total !== null;
  const complete = planned ? s.chunks_done >= s.chunks_total! : s.stopped !== null;
  if (!complete) return undefined;
  const gap = Math.max(0, s.total_recipients - s.sent - s.failed - s.skipped - s.left_out);
  const skipped = s.stopped ? s.skipped : s.skipped + gap;
  const leftOut = s.stopped ? s.left_out + gap : s.left_out;
  const finished: FinishedSend = {
    sendId,
    status: s.sent > 0 ? 'approved' : 'draft',
    sent: s.sent,
    failed: s.failed,
    skipped,
    leftOut,
    stopped: s.stopped,
  };
  // A credentials stop keeps the message written when it stopped (it names Apple's reason).
  const message = s.stopped === 'credentials' && !detail && s.message.includes('refused') ? s.message : finishMessage(finished, detail);
  await db.query(
    `UPDATE sends SET status = $2, skipped = $3, left_out = $4, message = $5, finished_at = now(), updated_at = now() WHERE id = $1`,
    [sendId, finished.status, skipped, leftOut, message],
  );
  const event: SendFinishedEvent = { ...finished, appId: s.app_id, totalRecipients: s.total_recipients };
  await enqueue(db, [{ subject: SUBJECTS.sendEvent('finished'), msgId: `send-finished-${sendId}`, payload: event }]);
  return finished;
}

/**
 * Stops a send early: chunks not yet started are left out (never sent, even later), chunks in
 * flight finish and are counted, and the send closes when the last of them is recorded (at once
 * when none is in flight). Idempotent.
 */
export async function stopSend(pool: Pool, sendId: number, reason: StopReason, detail?: string): Promise<FinishedSend | undefined> {
  return inTransaction(pool, (db) => stopWithin(db, sendId, reason, detail));
}

/** stopSend inside the caller's transaction (recordChunk uses it when a chunk hit refused credentials). */
export async function stopWithin(db: PoolClient, sendId: number, reason: StopReason, detail?: string): Promise<FinishedSend | undefined> {
  const s = await lockSend(db, sendId);
  if (!s || !running(s)) return undefined;
  const left = await db.query<{ planned: number }>(
    `UPDATE send_chunks SET state = 'left_out', left_out = planned, lease_until = NULL, finished_at = now()
      WHERE send_id = $1 AND state = 'planned' RETURNING planned`,
    [sendId],
  );
  const devices = left.rows.reduce((sum, r) => sum + r.planned, 0);
  const message = reason === 'credentials' ? finishMessage({ sendId, status: 'draft', sent: 0, failed: 0, skipped: 0, leftOut: 0, stopped: reason }, detail) : s.message;
  await db.query(
    `UPDATE sends SET stopped = coalesce(stopped, $2), chunks_done = chunks_done + $3, left_out = left_out + $4,
                      message = $5, updated_at = now() WHERE id = $1`,
    [sendId, reason, left.rowCount ?? 0, devices, message],
  );
  return finishIfComplete(db, sendId, detail);
}

/** Sends of apps whose invoice is overdue that are still running: each is stopped. */
export async function stopOverdueSends(pool: Pool, appId?: string): Promise<number[]> {
  const res = await pool.query<{ id: number }>(
    `SELECT s.id FROM sends s JOIN apps a ON a.id = s.app_id
      WHERE (s.status IN ('queued', 'sending') OR (s.status = 'scheduled' AND s.chunks_total IS NOT NULL))
        AND a.invoice_overdue AND s.stopped IS NULL AND ($1::uuid IS NULL OR a.id = $1)`,
    [appId ?? null],
  );
  const stopped: number[] = [];
  for (const { id } of res.rows) {
    await stopSend(pool, id, 'paused');
    stopped.push(id);
  }
  return stopped;
}

export { inTransaction };
