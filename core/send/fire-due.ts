// Fires scheduled sends whose send_after has come (DECISIONS "Time": leaving `scheduled`). A duty
// of the scheduler leader (scheduler.ts); each due send fires in its own transaction (its row
// claimed FOR UPDATE SKIP LOCKED), so one that cannot fire (its custom segment was removed, its
// audience cannot be measured) becomes a draft saying why and never holds back another.
//
// At firing the audience is measured again (DECISIONS "Time": scheduled counts) and the
// transitions table decides: `queued` (segment, tag: a sender plans it), `sending` (list: its one
// chunk recorded here), `approved` (empty), `draft` (app paused, no credentials), or a
// `delayed_option: timezone` send stays `scheduled` and is planned here in chunks grouped by
// device time zone, each with the instant it may go out (core/delivery/timezone.ts); a
// `delayed_option: last-active` send likewise, by the hour of each install's last activity
// (core/delivery/last-active.ts).
import type { Pool, PoolClient } from '../store/db.js';
import { inTransaction } from '../store/db.js';
import type { Bus } from '../bus/jetstream.js';
import { getApp } from '../apps/app-store.js';
import { measureAudience } from '../audience/measure.js';
import { recordTimezonePlan, timezoneChunks } from '../delivery/timezone.js';
import { planLastActive } from '../delivery/last-active.js';
import { recordListPlan } from '../delivery/planner.js';
import { finishIfComplete } from '../delivery/finish.js';
import { wakeSenders } from '../delivery/wake.js';
import type { SendRequest } from '../send-model/request.js';
import { isConditionTarget } from '../audience/target-kinds.js';
import { writeTransition } from '../send-model/transitions.js';
import { isUnderwayStatus, type SendStatus } from '../send-model/states.js';
import { haltReason } from '../apps/sendable.js';
import { recordClosedSend, recordNotificationEvent } from '../events/record.js';

export interface FiredSend {
  sendId: number;
  status: SendStatus;
  totalRecipients: number;
  /** Why it could not fire (it became a draft). */
  error?: string;
}

interface DueSend {
  id: number;
  app_id: string;
  request: SendRequest;
  starts: Date;
}

// Timezone sends: due at send_after, or at once (created_at) with delivery_time_of_day only;
// chunks_total is set when they fire (they stay `scheduled`), so each fires once.
const DUE = `SELECT id, app_id, request, coalesce(send_after, created_at) AS starts FROM sends
  WHERE status = 'scheduled' AND chunks_total IS NULL AND coalesce(send_after, created_at) <= coalesce($1::timestamptz, now())`;

async function fireOne(db: PoolClient, row: DueSend): Promise<FiredSend> {
  const req = row.request;
  const app = await getApp(db, row.app_id);
  const halted = haltReason(app);
  const measured = !halted && app?.hasCredentials ? await measureAudience(db, app, req.target) : undefined;
  const total = measured?.estimate ?? 0;
  const step = await writeTransition(db, row.id, 'scheduled', 'fire', {
    halted,
    hasCredentials: !!app?.hasCredentials,
    audience: total,
    timezone: req.timezoneDelivery?.timeOfDay,
    lastActive: !!req.lastActiveDelivery,
    broadcast: isConditionTarget(req.target),
  });
  if (!step) throw new Error('the send is no longer scheduled');
  // A draft at firing keeps the audience counted when it was scheduled, all of it left out (in
  // neither processed nor remaining), like a send paused before its first chunk.
  await db.query(
    `UPDATE sends SET total_recipients = CASE WHEN $2 THEN total_recipients ELSE $3 END,
            left_out = CASE WHEN $2 THEN total_recipients ELSE left_out END, audience_max_seq = $4
      WHERE id = $1`,
    [row.id, step.to === 'draft', total, measured?.maxSeq ?? null],
  );
  if (step.final) {
    // Closed at its firing: the pause that kept it from going out, then its end (docs/events.md).
    if (halted === 'paused') await recordNotificationEvent(db, row.id, 'notification.paused', { status: 'scheduled' });
    await recordClosedSend(db, row.id, halted ?? null);
  } else if (step.to === 'scheduled') {
    // Planned now, in this transaction; its chunks wait for their zone's (or last-active hour's) moment.
    const opts = { maxSeq: measured?.maxSeq ?? 0, cap: total, from: new Date(row.starts) };
    let count: number;
    if (req.lastActiveDelivery) {
      count = (await planLastActive(db, app!, row.id, req, opts)).chunks;
    } else {
      const chunks = await timezoneChunks(db, app!, req, opts);
      await recordTimezonePlan(db, row.id, chunks);
      count = chunks.length;
    }
    if (!count) await finishIfComplete(db, row.id); // nothing left to deliver after all
  } else if (step.to === 'sending') {
    await recordListPlan(db, row.id, req);
  }
  return { sendId: row.id, status: step.to, totalRecipients: total };
}

/** Marks a send that could not fire a draft with the reason, in a transaction of its own. */
async function failOne(pool: Pool, sendId: number, error: unknown): Promise<FiredSend | undefined> {
  const detail = error instanceof Error ? error.message : String(error);
  return inTransaction(pool, async (db) => {
    const locked = await db.query('SELECT total_recipients FROM sends WHERE id = $1 AND status = $2 FOR UPDATE', [sendId, 'scheduled']);
    if (!locked.rowCount) return undefined;
    await db.query('UPDATE sends SET left_out = total_recipients WHERE id = $1', [sendId]);
    const step = await writeTransition(db, sendId, 'scheduled', 'fire_failed', { detail });
    if (step) await recordClosedSend(db, sendId, null);
    return step ? { sendId, status: step.to, totalRecipients: locked.rows[0].total_recipients, error: detail } : undefined;
  });
}

/** Fires up to `limit` due sends, each in its own transaction; returns what it did. */
export async function fireDueSends(deps: { pool: Pool; bus?: Bus; now?: Date }, opts: { limit?: number } = {}): Promise<FiredSend[]> {
  const due = await deps.pool.query<{ id: number }>(`SELECT id FROM (${DUE}) d ORDER BY starts, id LIMIT $2`, [deps.now ?? null, opts.limit ?? 50]);
  const fired: FiredSend[] = [];
  for (const { id } of due.rows) {
    try {
      const one = await inTransaction(deps.pool, async (db) => {
        const row = (await db.query<DueSend>(`${DUE} AND id = $2 FOR UPDATE SKIP LOCKED`, [deps.now ?? null, id])).rows[0];
        return row ? fireOne(db, row) : undefined; // fired by another caller meanwhile
      });
      if (one) fired.push(one);
    } catch (error) {
      const failed = await failOne(deps.pool, id, error);
      if (failed) fired.push(failed);
    }
  }
  if (fired.some((f) => isUnderwayStatus(f.status))) wakeSenders(deps.bus);
  return fired;
}
