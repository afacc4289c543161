// Cancel (DELETE /api/v1/notifications/{id}, a Send's spec.cancel): the same stop as a pause
// (core/delivery/finish.ts stopWithin): no new chunk starts, chunks in flight finish and count, and
// the send ends `approved` when some devices were reached, else `draft`; the rest are never sent.
// A scheduled send that has not fired ends `draft` at once. `sends.canceled_at` records the cancel
// (GET stats and the Send show `canceled: true`). Repeating a cancel changes nothing.
import { recordNotificationEvent } from '../events/record.js';
import { LISTED_KINDS_SQL } from './report.js';
import type { Pool, PoolClient } from '../store/db.js';
import { inTransaction } from '../store/db.js';
import { stopWithin } from '../delivery/finish.js';
import { isFinalStatus, type SendStatus } from '../send-model/states.js';

export type CancelOutcome =
  | { kind: 'canceled' } // stopped now, or already cancelled
  | { kind: 'not_found' }
  | { kind: 'finished'; status: string }; // ended before the cancel: nothing to stop

interface Row {
  app_id: string;
  status: SendStatus;
  chunks_total: number | null;
  canceled_at: Date | null;
  total_recipients: number;
}

export async function cancelSend(pool: Pool, appId: string, sendId: number): Promise<CancelOutcome> {
  return inTransaction(pool, (db) => cancelWithin(db, appId, sendId));
}

export async function cancelWithin(db: PoolClient, appId: string, sendId: number): Promise<CancelOutcome> {
  const res = await db.query<Row>(
    `SELECT app_id, status, chunks_total, canceled_at, total_recipients FROM sends
      WHERE id = $1 AND app_id = $2 AND ${LISTED_KINDS_SQL} FOR UPDATE`,
    [sendId, appId],
  );
  const s = res.rows[0];
  if (!s) return { kind: 'not_found' };
  if (s.canceled_at) return { kind: 'canceled' };
  if (isFinalStatus(s.status)) return { kind: 'finished', status: s.status };
  await db.query(`UPDATE sends SET canceled_at = now() WHERE id = $1`, [sendId]);
  // Its event before the stop's (a send with nothing in flight finishes in that stop).
  await recordNotificationEvent(db, sendId, 'notification.canceled', { status: s.status });
  // The pause's stop with its own reason (core/delivery/finish.ts): a send not yet fired has
  // nothing in flight and ends at once, `draft`, its whole estimate left out; a running one ends
  // when its chunks in flight are recorded. Status and message: the transitions table.
  await stopWithin(db, sendId, 'canceled');
  return { kind: 'canceled' };
}
