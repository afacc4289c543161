// The tokens of an install's other push types (migration 046; docs/api.md "Push type tokens"):
// set (insert or replace), remove, and removed when Apple refuses them for good. A refusal of a
// VoIP token takes that token only: the install stays subscribed with its alert token, as a Live
// Activity token's refusal leaves it (core/live-activities/tokens.ts).
import type { Queryable } from '../store/db.js';
import type { RefusedToken } from '../send-model/devices.js';
import type { OwnTokenPushType } from '../payload/push-types.js';

export interface PushTypeTokenKey {
  appId: string;
  subscriptionId: string;
  pushType: OwnTokenPushType;
}

/** false when the install is not one of this app's. */
export async function setPushTypeToken(db: Queryable, t: PushTypeTokenKey & { token: string }): Promise<boolean> {
  const set = await db.query(
    `INSERT INTO push_type_tokens (app_id, subscription_id, push_type, token)
     SELECT $1, id, $3, $4 FROM subscriptions WHERE app_id = $1 AND id = $2::uuid
     ON CONFLICT (subscription_id, push_type) DO UPDATE SET token = EXCLUDED.token, updated_at = now()`,
    [t.appId, t.subscriptionId, t.pushType, t.token],
  );
  return (set.rowCount ?? 0) > 0;
}

/** false when the install held no token of that type. */
export async function removePushTypeToken(db: Queryable, t: PushTypeTokenKey): Promise<boolean> {
  const res = await db.query('DELETE FROM push_type_tokens WHERE app_id = $1 AND subscription_id = $2::uuid AND push_type = $3', [
    t.appId, t.subscriptionId, t.pushType,
  ]);
  return (res.rowCount ?? 0) > 0;
}

/**
 * Removes the tokens of `pushType` Apple refused for good (410 Unregistered, BadDeviceToken,
 * DeviceTokenNotForTopic): each install's row, only while it still holds the refused token, and
 * for a 410 only when it was registered before Apple found it invalid (as for alert tokens).
 */
export async function removeRefusedPushTypeTokens(db: Queryable, appId: string, pushType: OwnTokenPushType, refused: RefusedToken[]): Promise<void> {
  if (!refused.length) return;
  await db.query(
    `DELETE FROM push_type_tokens t USING unnest($3::uuid[], $4::text[], $5::float8[]) AS r(subscription_id, token, apple_ms)
      WHERE t.subscription_id = r.subscription_id AND t.push_type = $2 AND t.app_id = $1 AND t.token = r.token
        AND (r.apple_ms IS NULL OR t.updated_at < to_timestamp(r.apple_ms / 1000.0))`,
    [appId, pushType, refused.map((r) => r.subscriptionId), refused.map((r) => r.token), refused.map((r) => r.appleTimestampMs ?? null)],
  );
}
