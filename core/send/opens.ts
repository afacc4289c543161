// Opens reported by the app (DECISIONS "POST /notifications/{id}/opened"): `clicked` rises once
// per install and send, however often the app reports it, and only for an install that was in
// the send's audience (the call is anonymous, so any install of the app could
// otherwise raise any send's count).
import type { AppRecord } from '../apps/app-store.js';
import { getApp } from '../apps/app-store.js';
import { Params, audienceCondition } from '../audience/filter.js';
import { isListMember } from '../audience/member.js';
import { isListTarget } from '../audience/target-kinds.js';
import type { Queryable, Pool } from '../store/db.js';
import { inTransaction } from '../store/db.js';
import type { SendRequest } from '../send-model/request.js';
import { recordDeviceEvents } from '../events/record.js';

export type OpenOutcome = 'counted' | 'repeat' | 'not_in_audience' | 'unknown_send' | 'unknown_subscription';

interface SendAudience {
  request: SendRequest;
  audience_max_seq: string | null;
}

/**
 * Whether the install was in the send's audience: named by a list send, or, for a segment or tag
 * send, registered before its audience snapshot and matching its condition now (tags changed
 * since the send are read as they are: the rare miss costs one uncounted open).
 */
async function inAudience(db: Queryable, app: AppRecord, send: SendAudience, install: { id: string; external_id: string | null }): Promise<boolean> {
  const target = send.request.target;
  if (isListTarget(target)) return isListMember(db, app.id, target, install);
  if (send.audience_max_seq === null) return false; // not fired yet: nobody received it
  const params = new Params([install.id, app.id]);
  const condition = `seq <= ${params.add(send.audience_max_seq)}::bigint AND ${audienceCondition(app, target, params)}`;
  const res = await db.query(`SELECT 1 FROM subscriptions WHERE id = $1 AND app_id = $2 AND ${condition}`, params.values);
  return (res.rowCount ?? 0) > 0;
}

export async function recordOpen(pool: Pool, appId: string, sendId: number, subscriptionId: string): Promise<OpenOutcome> {
  return inTransaction(pool, async (db) => {
    const send = await db.query<SendAudience>(
      `SELECT request, audience_max_seq FROM sends WHERE id = $1 AND app_id = $2 AND kind = 'push'`,
      [sendId, appId],
    );
    if (!send.rowCount) return 'unknown_send';
    const sub = await db.query<{ android: boolean; external_id: string | null }>(`SELECT platform = 'android' AS android, external_id FROM subscriptions WHERE id = $1 AND app_id = $2`, [subscriptionId, appId]);
    if (!sub.rowCount) return 'unknown_subscription';
    const app = await getApp(db, appId);
    if (!app || !(await inAudience(db, app, send.rows[0], { id: subscriptionId, external_id: sub.rows[0].external_id }))) return 'not_in_audience';
    const inserted = await db.query(
      'INSERT INTO opens (send_id, subscription_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [sendId, subscriptionId],
    );
    if (!inserted.rowCount) return 'repeat';
    // The Android share beside it (migration 085), by the install's platform: platform_delivery_stats.
    await db.query('UPDATE sends SET clicked = clicked + 1, clicked_android = clicked_android + $2, updated_at = now() WHERE id = $1', [sendId, sub.rows[0].android ? 1 : 0]);
    // Its event with the count, once per install and send as the count (a repeat reports nothing);
    // last, as it takes the app's event lock until the commit (core/events/record.ts).
    await recordDeviceEvents(db, appId, sendId, [['message.push.clicked', subscriptionId, {}]]);
    return 'counted';
  });
}
