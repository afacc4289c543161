// Fires scheduled sends whose send_after has come (DECISIONS "Time": leaving `scheduled`). Run by
// the controller and by every sender (so an install without a cluster fires schedules too); the
// rows are claimed with FOR UPDATE SKIP LOCKED, so any number of replicas can run it at once.
//
// At firing the audience is measured again (DECISIONS "Time": scheduled counts), the send becomes
// `queued` (segment, tag) or `sending` (list) and its plan job goes through the outbox in the same
// transaction; an app paused at that moment ends the send `draft`, with nothing sent.
//
// A `delayed_option: timezone` send (request.timezoneDelivery) fires at send_after (at once when
// only delivery_time_of_day was given): its audience is measured and planned here, in chunks
// grouped by device time zone, each with the instant it may go out (core/delivery/timezone.ts);
// it stays `scheduled` while releaseDueChunks lets its zones go one after the other.
import type { Pool } from '../store/db.js';
import { inTransaction } from '../store/db.js';
import type { Bus } from '../bus/jetstream.js';
import { enqueue, publishAndDelete, type EnqueuedMessage } from '../bus/outbox.js';
import { SUBJECTS } from '../bus/subjects.js';
import { getApp } from '../apps/app-store.js';
import { measureAudience } from '../audience/measure.js';
import { recordTimezonePlan, timezoneChunks } from '../delivery/timezone.js';
import { finishIfComplete } from '../delivery/finish.js';
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
    // Timezone sends: due at send_after, or at once (created_at) with delivery_time_of_day only;
    // chunks_total is set when they fire (they stay `scheduled`), so each fires once.
    const due = await db.query<{ id: number; app_id: string; request: SendRequest; starts: Date }>(
      `SELECT id, app_id, request, coalesce(send_after, created_at) AS starts FROM sends
        WHERE status = 'scheduled' AND chunks_total IS NULL AND coalesce(send_after, created_at) <= coalesce($1::timestamptz, now())
        ORDER BY coalesce(send_after, created_at), id
        LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [deps.now ?? null, opts.limit ?? 50],
    );
    const fired: FiredSend[] = [];
    const outboxIds: EnqueuedMessage[] = [];
    for (const row of due.rows) {
      const req = row.request;
      const timezone = !!req.timezoneDelivery;
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
        } else if (timezone) {
          status = 'scheduled';
          message = `Going out to ${devices(total)} at ${req.timezoneDelivery!.timeOfDay} in each device's time zone.`;
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
      if (!final && timezone) {
        // Planned now, in this transaction; its chunks wait for their zone's moment (no plan job).
        const chunks = await timezoneChunks(db, app!, req, { maxSeq: maxSeq ?? 0, cap: total, from: new Date(row.starts) });
        await recordTimezonePlan(db, row.id, chunks);
        if (!chunks.length) await finishIfComplete(db, row.id); // nothing left to deliver after all
      } else if (!final) {
        outboxIds.push(...(await enqueue(db, [{ subject: SUBJECTS.planJob, msgId: `plan-${row.id}`, payload: { sendId: row.id } }])));
      }
      fired.push({ sendId: row.id, status, totalRecipients: total });
    }
    return { fired, outboxIds };
  });
  if (deps.bus && outboxIds.length) await publishAndDelete(deps.pool, deps.bus, outboxIds).catch(() => undefined);
  return fired;
}
