// Installs registered by the app's SDK (DECISIONS "app-facing interfaces"). Tags are stored as
// text values so tag matching has one type to compare; each call counts as a session.
import { randomUUID } from 'node:crypto';
import { ConflictError } from '../errors.js';
import type { Queryable } from '../store/db.js';

export interface SubscriptionFields {
  token?: string;
  external_id?: string | null;
  language?: string | null;
  timezone?: string | null;
  /** Values already text; null removes a tag (PATCH). */
  tags?: Record<string, string | null>;
  subscribed?: boolean;
}

/** Registers a token or updates the install that has it. */
export async function upsertSubscription(db: Queryable, appId: string, fields: SubscriptionFields & { token: string }): Promise<{ id: string; created: boolean }> {
  const { set, remove } = splitTags(fields.tags);
  const res = await db.query(
    `INSERT INTO subscriptions (id, app_id, token, external_id, language, timezone, tags, subscribed, last_active)
     VALUES ($1, $2, $3, $4, $5, $6, $7, coalesce($8, true), now())
     ON CONFLICT (app_id, token) DO UPDATE SET
       external_id = CASE WHEN $9 THEN EXCLUDED.external_id ELSE subscriptions.external_id END,
       language    = CASE WHEN $10 THEN EXCLUDED.language ELSE subscriptions.language END,
       timezone    = CASE WHEN $11 THEN EXCLUDED.timezone ELSE subscriptions.timezone END,
       tags        = (subscriptions.tags || $7::jsonb) - $12::text[],
       subscribed  = coalesce($8, subscriptions.subscribed),
       last_active = now(), updated_at = now()
     RETURNING id, (xmax = 0) AS created`,
    [
      randomUUID(), appId, fields.token, fields.external_id ?? null, fields.language ?? null, fields.timezone ?? null,
      JSON.stringify(set), fields.subscribed ?? null,
      'external_id' in fields, 'language' in fields, 'timezone' in fields, remove,
    ],
  );
  return { id: res.rows[0].id, created: res.rows[0].created };
}

/** Partial update of one install; false when it is not an install of this app. */
export async function patchSubscription(db: Queryable, appId: string, id: string, fields: SubscriptionFields): Promise<boolean> {
  const { set, remove } = splitTags(fields.tags);
  const res = await db.query(
    `UPDATE subscriptions SET
       token       = coalesce($3, token),
       external_id = CASE WHEN $4 THEN $5 ELSE external_id END,
       language    = CASE WHEN $6 THEN $7 ELSE language END,
       timezone    = CASE WHEN $8 THEN $9 ELSE timezone END,
       tags        = (tags || $10::jsonb) - $11::text[],
       subscribed  = coalesce($12, subscribed),
       last_active = now(), updated_at = now()
     WHERE app_id = $1 AND id = $2`,
    [
      appId, id, fields.token ?? null,
      'external_id' in fields, fields.external_id ?? null,
      'language' in fields, fields.language ?? null,
      'timezone' in fields, fields.timezone ?? null,
      JSON.stringify(set), remove, fields.subscribed ?? null,
    ],
  ).catch((error: unknown) => {
    // The app's unique token index: another install of this app holds that token.
    if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) throw new ConflictError('token is registered to another subscription of this app; register it there, or delete that one first.');
    throw error;
  });
  return (res.rowCount ?? 0) > 0;
}

const UNIQUE_VIOLATION = '23505';

function splitTags(tags: Record<string, string | null> | undefined): { set: Record<string, string>; remove: string[] } {
  const set: Record<string, string> = {};
  const remove: string[] = [];
  for (const [k, v] of Object.entries(tags ?? {})) {
    if (v === null) remove.push(k);
    else set[k] = v;
  }
  return { set, remove };
}

/** Marks an install unsubscribed (APNs answered 410 Unregistered for its token). */
export async function unsubscribeTokens(db: Queryable, appId: string, tokens: string[]): Promise<void> {
  if (!tokens.length) return;
  await db.query('UPDATE subscriptions SET subscribed = false, updated_at = now() WHERE app_id = $1 AND token = ANY($2)', [appId, tokens]);
}
