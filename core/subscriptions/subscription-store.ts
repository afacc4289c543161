// Installs registered by the app's SDK (DECISIONS "app-facing interfaces"). Tags are stored as
// text values so tag matching has one type to compare; each call counts as a session.
import { randomUUID } from 'node:crypto';
import { ConflictError, ValidationError } from '../errors.js';
import type { Queryable } from '../store/db.js';
import { isUuid } from '../formats/uuid.js';
import { typeOf, type Platform } from '../formats/install-type.js';
import type { RefusedToken } from '../send-model/devices.js';
import { lockSubscribed, recordAppUnsubscribe, UNSUBSCRIBED_BY_APP } from './app-unsubscribe.js';

export interface SubscriptionFields {
  token?: string;
  external_id?: string | null;
  language?: string | null;
  timezone?: string | null;
  /** Values already text; null removes a tag (PATCH). */
  tags?: Record<string, string | null>;
  subscribed?: boolean;
  /** The gateway the token belongs to (the SDK's test_type); null = the App's environment. */
  environment?: 'production' | 'sandbox' | null;
}

/** OneSignal's test_type → gateway. Apple: a development build's token is valid on the sandbox gateway; ad hoc and App Store builds use production. */
export const TEST_TYPE_ENVIRONMENT: Readonly<Record<string, 'sandbox' | 'production'>> = { 1: 'sandbox', 2: 'production' };

/**
 * The answer when a token is registered under the other platform than the install that has it
 * (UNIQUE (app_id, token) stays; docs/decisions.md "The same token under the other platform"):
 * an install never changes platform, so a device's pushes never silently go to another gateway.
 */
export function platformClash(wanted: Platform): ConflictError {
  const other = typeOf(wanted === 'ios' ? 'android' : 'ios');
  return new ConflictError(`token is registered to an ${other} subscription of this app; delete that one first to register the token as ${typeOf(wanted)}.`);
}

/** An install's platform (undefined: no such install of the app); it never changes once registered. */
export async function installPlatform(db: Queryable, appId: string, id: string): Promise<Platform | undefined> {
  if (!isUuid(id)) return undefined;
  const res = await db.query<{ platform: Platform }>('SELECT platform FROM subscriptions WHERE app_id = $1 AND id = $2::uuid', [appId, id]);
  return res.rows[0]?.platform;
}

/**
 * A token only Apple serves (a Live Activity's, a VoIP, location, … push type's) is registered on
 * an iOS install only: an Android install with one would be handed to FCM by a send of that kind.
 * 422 naming what for an AndroidPush install; an unknown install is the caller's 404, as before.
 */
export async function checkApnsInstall(db: Queryable, appId: string, id: string, what: string): Promise<void> {
  if ((await installPlatform(db, appId, id)) === 'android') {
    throw new ValidationError(`${what} are Apple's (APNs): this install is AndroidPush, so it cannot hold one.`);
  }
}

/**
 * Registers a token or updates the install that has it. A registration is the SDK vouching for
 * the token now: an install Apple had unsubscribed (its reason kept) is subscribed again unless
 * the call says `subscribed: false`; one the app itself unsubscribed stays so until it says true.
 * A subscribed install it unsubscribes is reported (app-unsubscribe.ts).
 */
export async function upsertSubscription(
  db: Queryable,
  appId: string,
  fields: SubscriptionFields & { token: string },
  platform: Platform = 'ios',
): Promise<{ id: string; created: boolean; userId: string | null }> {
  const { set, remove } = splitTags(fields.tags);
  const unsubscribing = fields.subscribed === false && (await lockSubscribed(db, appId, { token: fields.token }));
  const res = await db.query(
    `INSERT INTO subscriptions (id, app_id, token, external_id, language, timezone, tags, subscribed, last_active, environment, registered_at, unsubscribed_reason, platform)
     VALUES ($1, $2, $3, $4, $5, $6, $7, coalesce($8, true), now(), $13, now(), CASE WHEN $8 = false THEN $15 END, $16)
     ON CONFLICT (app_id, token) DO UPDATE SET
       external_id = CASE WHEN $9 THEN EXCLUDED.external_id ELSE subscriptions.external_id END,
       language    = CASE WHEN $10 THEN EXCLUDED.language ELSE subscriptions.language END,
       timezone    = CASE WHEN $11 THEN EXCLUDED.timezone ELSE subscriptions.timezone END,
       environment = CASE WHEN $14 THEN EXCLUDED.environment ELSE subscriptions.environment END,
       tags        = (subscriptions.tags || $7::jsonb) - $12::text[],
       subscribed  = coalesce($8, subscriptions.subscribed OR coalesce(subscriptions.unsubscribed_reason <> $15, false)),
       unsubscribed_reason = CASE
         WHEN coalesce($8, subscriptions.subscribed OR coalesce(subscriptions.unsubscribed_reason <> $15, false)) THEN NULL
         WHEN $8 = false THEN $15
         ELSE subscriptions.unsubscribed_reason END,
       registered_at = now(), last_active = now(), updated_at = now()
     WHERE subscriptions.platform = EXCLUDED.platform
     RETURNING id, (xmax = 0) AS created, user_id`,
    [
      randomUUID(), appId, fields.token, fields.external_id ?? null, fields.language ?? null, fields.timezone ?? null,
      JSON.stringify(set), fields.subscribed ?? null,
      'external_id' in fields, 'language' in fields, 'timezone' in fields, remove,
      fields.environment ?? null, 'environment' in fields, UNSUBSCRIBED_BY_APP, platform,
    ],
  );
  if (!res.rowCount) throw platformClash(platform);
  if (unsubscribing) await recordAppUnsubscribe(db, appId, res.rows[0].id);
  return { id: res.rows[0].id, created: res.rows[0].created, userId: res.rows[0].user_id };
}

/**
 * Partial update of one install; false when it is not an install of this app. A token in it is a
 * registration, as a POST is: an install Apple had unsubscribed is subscribed again unless the
 * call says `subscribed: false`; one the app itself unsubscribed stays so. A subscribed install it
 * unsubscribes is reported (app-unsubscribe.ts).
 */
export async function patchSubscription(db: Queryable, appId: string, id: string, fields: SubscriptionFields): Promise<boolean> {
  const { set, remove } = splitTags(fields.tags);
  const unsubscribing = fields.subscribed === false && (await lockSubscribed(db, appId, { id }));
  const res = await db.query(
    `UPDATE subscriptions SET
       token       = coalesce($3, token),
       external_id = CASE WHEN $4 THEN $5 ELSE external_id END,
       language    = CASE WHEN $6 THEN $7 ELSE language END,
       timezone    = CASE WHEN $8 THEN $9 ELSE timezone END,
       tags        = (tags || $10::jsonb) - $11::text[],
       environment = CASE WHEN $13 THEN $14 ELSE environment END,
       subscribed  = CASE
         WHEN $12::boolean IS NOT NULL THEN $12
         WHEN $3::text IS NOT NULL THEN subscribed OR coalesce(unsubscribed_reason <> $15, false)
         ELSE subscribed END,
       unsubscribed_reason = CASE
         WHEN $12 = true THEN NULL
         WHEN $12 = false THEN $15
         WHEN $3::text IS NOT NULL AND (subscribed OR coalesce(unsubscribed_reason <> $15, false)) THEN NULL
         ELSE unsubscribed_reason END,
       -- A new token is a registration (its 410s before now are about the old one).
       registered_at = CASE WHEN $3::text IS NOT NULL THEN now() ELSE registered_at END,
       last_active = now(), updated_at = now()
     WHERE app_id = $1 AND id = $2`,
    [
      appId, id, fields.token ?? null,
      'external_id' in fields, fields.external_id ?? null,
      'language' in fields, fields.language ?? null,
      'timezone' in fields, fields.timezone ?? null,
      JSON.stringify(set), remove, fields.subscribed ?? null,
      'environment' in fields, fields.environment ?? null, UNSUBSCRIBED_BY_APP,
    ],
  ).catch((error: unknown) => {
    // The app's unique token index: another install of this app holds that token.
    if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) throw new ConflictError('token is registered to another subscription of this app; register it there, or delete that one first.');
    throw error;
  });
  if (!res.rowCount) return false;
  if (unsubscribing) await recordAppUnsubscribe(db, appId, id);
  return true;
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

/**
 * Marks installs unsubscribed with Apple's reason. A 410 carries the time Apple found the token
 * invalid: a registration after it (the app vouched for the token again) wins, as Apple asks.
 * Returns the installs it unsubscribed (the events report only those as unsubscribed).
 */
export async function unsubscribeRefused(db: Queryable, appId: string, refused: RefusedToken[]): Promise<Set<string>> {
  if (!refused.length) return new Set();
  const res = await db.query<{ id: string }>(
    `UPDATE subscriptions s SET subscribed = false, unsubscribed_reason = r.reason, updated_at = now()
       FROM unnest($2::text[], $3::text[], $4::float8[]) AS r(token, reason, apple_ms)
      WHERE s.app_id = $1 AND s.token = r.token AND s.subscribed
        AND (r.apple_ms IS NULL OR coalesce(s.registered_at, s.created_at) < to_timestamp(r.apple_ms / 1000.0))
    RETURNING s.id::text AS id`,
    [appId, refused.map((r) => r.token), refused.map((r) => r.reason), refused.map((r) => r.appleTimestampMs ?? null)],
  );
  return new Set(res.rows.map((r) => r.id));
}

/** One install's row, as the dashboard's install page and the keyed read show it. */
export interface Install {
  id: string;
  seq: number;
  token: string;
  external_id: string | null;
  language: string | null;
  timezone: string | null;
  tags: Record<string, string>;
  subscribed: boolean;
  /** Why not subscribed: 'app' (the SDK said so) or Apple's reason; null when subscribed. */
  unsubscribed_reason: string | null;
  /** The gateway its token belongs to; null = the App's environment. */
  environment: 'production' | 'sandbox' | null;
  /** 'ios' (an APNs token) or 'android' (an FCM token); never changes. */
  platform: Platform;
  /** Its user (OneSignal id); null until a user call first names the install (docs/decisions.md "Issue 27"). */
  user_id: string | null;
  /** The last time the SDK registered the token. */
  registered_at: Date;
  last_active: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** One install of the app, or undefined (an id that is not a UUID finds nothing). */
export async function readInstall(db: Queryable, appId: string, id: string): Promise<Install | undefined> {
  if (!isUuid(id)) return undefined;
  const res = await db.query<Install>(
    `SELECT id, seq, token, external_id, language, timezone, tags, subscribed, unsubscribed_reason, environment, platform, user_id,
            coalesce(registered_at, created_at) AS registered_at, last_active, created_at, updated_at
       FROM subscriptions WHERE app_id = $1 AND id = $2::uuid`,
    [appId, id],
  );
  return res.rows[0];
}

/** The keyed REST read of one install: its row without the internal order, times in ISO 8601. */
export interface SubscriptionView extends Omit<Install, 'seq' | 'updated_at' | 'registered_at' | 'last_active' | 'created_at'> {
  registered_at: string;
  last_active: string | null;
  created_at: string;
}

export async function readSubscription(db: Queryable, appId: string, id: string): Promise<SubscriptionView | undefined> {
  const row = await readInstall(db, appId, id);
  if (!row) return undefined;
  const { seq: _seq, updated_at: _updated, ...view } = row;
  return { ...view, registered_at: row.registered_at.toISOString(), last_active: row.last_active?.toISOString() ?? null, created_at: row.created_at.toISOString() };
}
