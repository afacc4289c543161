// Live Activity tokens of an app's installs (migration 024): set (insert or replace) and remove,
// bounded per install so an install cannot grow the table without end; removed when Apple refuses
// them, and an update token dropped once an end was delivered to it.
import type { Queryable } from '../store/db.js';
import type { LiveActivityRequest } from '../send-model/request.js';
import type { RefusedToken } from '../send-model/devices.js';

export type LiveActivityTokenKind = 'update' | 'start';

/** Tokens one install may hold, update and push-to-start together; the oldest go first. */
export const MAX_TOKENS_PER_INSTALL = 50;

export interface LiveActivityTokenKey {
  appId: string;
  kind: LiveActivityTokenKind;
  /** The activity id (update tokens) or the activity type (push-to-start tokens). */
  activity: string;
  subscriptionId: string;
}

/** false when the install is not one of this app's. */
export async function setLiveActivityToken(db: Queryable, t: LiveActivityTokenKey & { token: string }): Promise<boolean> {
  const set = await db.query(
    `INSERT INTO live_activity_tokens (app_id, kind, activity, subscription_id, token)
     SELECT $1, $2, $3, id, $5 FROM subscriptions WHERE app_id = $1 AND id = $4::uuid
     ON CONFLICT (app_id, kind, activity, subscription_id) DO UPDATE SET token = EXCLUDED.token, updated_at = now()`,
    [t.appId, t.kind, t.activity, t.subscriptionId, t.token],
  );
  if (!set.rowCount) return false;
  await db.query(
    `DELETE FROM live_activity_tokens WHERE ctid = ANY (ARRAY(
       SELECT ctid FROM live_activity_tokens WHERE subscription_id = $1::uuid ORDER BY updated_at DESC OFFSET $2))`,
    [t.subscriptionId, MAX_TOKENS_PER_INSTALL],
  );
  return true;
}

/** false when there was no such token. */
export async function removeLiveActivityToken(db: Queryable, t: LiveActivityTokenKey): Promise<boolean> {
  const res = await db.query('DELETE FROM live_activity_tokens WHERE app_id = $1 AND kind = $2 AND activity = $3 AND subscription_id = $4::uuid', [
    t.appId, t.kind, t.activity, t.subscriptionId,
  ]);
  return (res.rowCount ?? 0) > 0;
}

/** The tokens a Live Activity push goes to: update tokens of the activity, or push-to-start tokens of the type. */
export function tokensOf(la: LiveActivityRequest): Pick<LiveActivityTokenKey, 'kind' | 'activity'> {
  return la.event === 'start' ? { kind: 'start', activity: la.activityType ?? '' } : { kind: 'update', activity: la.activityId };
}

/** A token Apple refused and that was removed: its install, Apple's reason and 410 timestamp. */
export interface RemovedToken {
  subscriptionId: string;
  reason: string;
  appleTimestampMs: number | null;
}

/**
 * Removes the tokens Apple refused for good (410 Unregistered or ExpiredToken, BadDeviceToken,
 * DeviceTokenNotForTopic): each install's row by the primary key, if it still holds the refused
 * token (one it registered since is another). A 410 carries the time Apple found the token
 * invalid: a token registered again after it stays, as for device tokens. Returns those removed
 * (their events report only these: a kept token was not removed).
 */
export async function removeRefusedTokens(db: Queryable, appId: string, la: LiveActivityRequest, refused: RefusedToken[]): Promise<RemovedToken[]> {
  if (!refused.length) return [];
  const { kind, activity } = tokensOf(la);
  const res = await db.query<RemovedToken>(
    `DELETE FROM live_activity_tokens t USING unnest($4::uuid[], $5::text[], $6::float8[], $7::text[]) AS r(subscription_id, token, apple_ms, reason)
      WHERE t.app_id = $1 AND t.kind = $2 AND t.activity = $3 AND t.subscription_id = r.subscription_id AND t.token = r.token
        AND (r.apple_ms IS NULL OR t.updated_at < to_timestamp(r.apple_ms / 1000.0))
    RETURNING t.subscription_id::text AS "subscriptionId", r.reason, r.apple_ms AS "appleTimestampMs"`,
    [appId, kind, activity, refused.map((r) => r.subscriptionId), refused.map((r) => r.token), refused.map((r) => r.appleTimestampMs ?? null), refused.map((r) => r.reason)],
  );
  return res.rows;
}

/**
 * The update tokens an `end` was delivered to: their activity ended, nothing more goes to them.
 * Each install's row by the primary key, only while it still holds that token (a new activity
 * reusing the id has another). Returns the installs whose token was dropped.
 */
export async function dropEndedTokens(db: Queryable, appId: string, activityId: string, delivered: Array<{ subscriptionId: string; token: string }>): Promise<string[]> {
  if (!delivered.length) return [];
  const res = await db.query<{ id: string }>(
    `DELETE FROM live_activity_tokens t USING unnest($3::uuid[], $4::text[]) AS d(subscription_id, token)
      WHERE t.app_id = $1 AND t.kind = 'update' AND t.activity = $2 AND t.subscription_id = d.subscription_id AND t.token = d.token
    RETURNING t.subscription_id::text AS id`,
    [appId, activityId, delivered.map((d) => d.subscriptionId), delivered.map((d) => d.token)],
  );
  return res.rows.map((r) => r.id);
}

/**
 * ActivityKit ends an activity after 8 hours at most and takes it off the Lock Screen 4 hours
 * later: an update token registered longer ago than this serves no activity any more.
 */
export const ENDED_ACTIVITY_HOURS = 12;
const ENDED_BATCH = 5_000;

/**
 * Drops the update tokens of activities that have certainly ended (the app never said so: killed,
 * or the system ended them), in bounded statements. Push-to-start tokens live on: they belong to
 * the app's type, not to one activity.
 */
export async function dropEndedActivityTokens(db: Queryable, maxBatches = 50): Promise<number> {
  let dropped = 0;
  for (let i = 0; i < maxBatches; i++) {
    const res = await db.query(
      `DELETE FROM live_activity_tokens WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM live_activity_tokens WHERE kind = 'update' AND updated_at < now() - make_interval(hours => $1)
          ORDER BY updated_at LIMIT $2))`,
      [ENDED_ACTIVITY_HOURS, ENDED_BATCH],
    );
    dropped += res.rowCount ?? 0;
    if ((res.rowCount ?? 0) < ENDED_BATCH) break;
  }
  return dropped;
}
