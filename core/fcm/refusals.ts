// FCM's latest refusal of an App's service account (migration 072), kept with its credentials so
// the controller can set FcmCredentialsReady false with the reason, and the dashboard show it,
// though no send stops for it (an Android device of a refused App is left out, never failed).
import type { Queryable } from '../store/db.js';

export interface FcmRefusal {
  /** FCM's code: TOKEN_REFUSED, THIRD_PARTY_AUTH_ERROR, UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, FcmCredentialsUnusable. */
  reason: string;
  at: Date;
}

/** Records a refusal; a repeat of the same reason within a minute writes nothing. */
export async function recordFcmRefusal(db: Queryable, appId: string, reason: string): Promise<void> {
  await db.query(
    `UPDATE fcm_credentials SET refused_reason = $2, refused_at = now()
      WHERE app_id = $1 AND (refused_at IS NULL OR refused_reason IS DISTINCT FROM $2 OR refused_at < now() - interval '1 minute')`,
    [appId, reason],
  );
}

/** FCM accepted the App's messages: the refusal is over. */
export async function clearFcmRefusal(db: Queryable, appId: string): Promise<void> {
  await db.query('UPDATE fcm_credentials SET refused_reason = NULL, refused_at = NULL WHERE app_id = $1 AND refused_at IS NOT NULL', [appId]);
}

/** The refusal of the App's current credentials, if FCM refused them since they were stored. */
export async function fcmRefusal(db: Queryable, appId: string): Promise<FcmRefusal | undefined> {
  const res = await db.query<{ refused_reason: string; refused_at: Date }>(
    'SELECT refused_reason, refused_at FROM fcm_credentials WHERE app_id = $1 AND refused_at IS NOT NULL AND refused_at > updated_at',
    [appId],
  );
  const r = res.rows[0];
  return r ? { reason: r.refused_reason, at: r.refused_at } : undefined;
}
