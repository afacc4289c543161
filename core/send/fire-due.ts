// Fires scheduled sends whose send_after has come (DECISIONS "Time": leaving `scheduled`). Run by
// the controller and by every sender (so an install without a cluster fires schedules too); the
// rows are claimed with FOR UPDATE SKIP LOCKED, so any number of replicas can run it at once.
//
// At firing the audience is measured again (DECISIONS "Time": scheduled counts), the send becomes
// `queued` (segment, tag) or `sending` (list) and its plan job goes through the outbox in the same
// transaction; an app paused at that moment ends the send `draft`, with nothing sent.
//
// Not yet done: `delayed_option: timezone` sends (request.timezoneDelivery). They are left
// `scheduled` here; firing them one time-zone slice at a time is the next step (docs/delivery.md).
import type { Pool } from '../store/db.js';
import { inTransaction } from '../store/db.js';
import type { Bus } from '../bus/jetstream.js';
import { enqueue, publishAndDelete, type EnqueuedMessage } from '../bus/outbox.js';
import { SUBJECTS } from '../bus/subjects.js';
import { getApp } from '../apps/app-store.js';
import { measureAudience } from '../audience/measure.js';
import type { SendRequest } from './request.js';
import { isBroadcast, type SendStatus } from './status.js';

export interface FiredSend {
  sendId: number;
  status: SendStatus;
  totalRecipients: number;
}

const devices = (n: number) => `${n.toLocaleString('en-US')} device${n === 1 ? '' : 's'}`;

/** Fires up to `limit` due sends; returns what it did. Publishes after commit (the relay retries). */
export async function fireDueSends(deps: { pool: Pool; bus?: Bus; now?: Date }, opts: { limit?: number } = {}): Promise<FiredSend[]> {
  const { fired, outboxIds } = await inTransaction(deps.pool, async (db) => {
    const due = await db.query<{ id: number; app_id: string; request: SendRequest }>(
      `SELECT id, app_id, request FROM sends
        WHERE status = 'scheduled' AND send_after <= coalesce($1::timestamptz, now()) AND NOT (request ? 'timezoneDelivery')
        ORDER BY send_after, id
        LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [deps.now ?? null, opts.limit ?? 50],
    );
    const fired: FiredSend[] = [];
    const outboxIds: EnqueuedMessage[] = [];
    for (const row of due.rows) {
      const req = row.request;
      const app = await getApp(db, row.app_id);
      let status: SendStatus;
      let message: string;
      let total = 0;
      let maxSeq: number | null = null;
      if (!app || app.invoiceOverdue || app.disabled) {
        status = 'draft';
        message = 'Not sent: delivery is paused until the invoice for the app is paid.';
      } else if (!app.hasCredentials) {
        status = 'draft';
        message = "Saved as a draft and not sent: the app has no push key or certificate for Apple's gateway.";
      } else {
        ({ estimate: total, maxSeq } = await measureAudience(db, app, req.target));
        if (total === 0) {
          status = 'approved';
          message = 'This notification reached no one: the audience is empty.';
        } else if (isBroadcast(req)) {
          status = 'queued';
          message = `Queued for ${devices(total)}; delivery goes on in the background.`;
        } else {
          status = 'sending';
          message = `Sending to ${devices(total)}.`;
        }
      }
      const final = status === 'approved' || status === 'draft';
      // A draft at firing keeps the audience counted when it was scheduled, all of it left out
      // (in neither processed nor remaining), like a send paused before its first chunk.
      await db.query(
        `UPDATE sends SET status = $2, message = $3,
                total_recipients = CASE WHEN $2 = 'draft' THEN total_recipients ELSE $4 END,
                left_out = CASE WHEN $2 = 'draft' THEN total_recipients ELSE left_out END,
                audience_max_seq = $5, updated_at = now(), finished_at = CASE WHEN $6 THEN now() END
          WHERE id = $1`,
        [row.id, status, message, total, maxSeq, final],
      );
      if (!final) outboxIds.push(...(await enqueue(db, [{ subject: SUBJECTS.planJob, msgId: `plan-${row.id}`, payload: { sendId: row.id } }])));
      fired.push({ sendId: row.id, status, totalRecipients: total });
    }
    return { fired, outboxIds };
  });
  if (deps.bus && outboxIds.length) await publishAndDelete(deps.pool, deps.bus, outboxIds).catch(() => undefined);
  return fired;
}
