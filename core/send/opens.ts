// Opens reported by the app (DECISIONS "POST /notifications/{id}/opened"): `clicked` rises once
// per install and send, however often the app reports it.
import type { Pool } from '../store/db.js';
import { inTransaction } from '../store/db.js';

export type OpenOutcome = 'counted' | 'repeat' | 'unknown_send' | 'unknown_subscription';

export async function recordOpen(pool: Pool, appId: string, sendId: number, subscriptionId: string): Promise<OpenOutcome> {
  return inTransaction(pool, async (db) => {
    const send = await db.query(`SELECT 1 FROM sends WHERE id = $1 AND app_id = $2 AND kind = 'push'`, [sendId, appId]);
    if (!send.rowCount) return 'unknown_send';
    const sub = await db.query('SELECT 1 FROM subscriptions WHERE id = $1 AND app_id = $2', [subscriptionId, appId]);
    if (!sub.rowCount) return 'unknown_subscription';
    const inserted = await db.query(
      'INSERT INTO opens (send_id, subscription_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [sendId, subscriptionId],
    );
    if (!inserted.rowCount) return 'repeat';
    await db.query('UPDATE sends SET clicked = clicked + 1, updated_at = now() WHERE id = $1', [sendId]);
    return 'counted';
  });
}
