// The writes of OneSignal's v1 device calls (issue 38 point 1), each the install calls' own write
// (core/subscriptions/subscription-store.ts) joined to the install's user in one transaction
// (writeInstall, install-join.ts), plus what the v1 calls report beyond them: the platform a
// registration names and the session count, time in the app and amount spent (migration 080).
// Erasure is deleteSubscription's operation and the tags of an external id's installs updateUser's
// (core/users/operations.ts).
import type { Pool, Queryable } from '../store/db.js';
import { NotFoundError } from '../errors.js';
import { patchSubscription, upsertSubscription } from '../subscriptions/subscription-store.js';
import type { PlayerChange, Platform } from '../subscriptions/player-body.js';
import { isUuid } from '../formats/uuid.js';
import { writeInstall } from './install-join.js';
import { eraseSubscription } from './subscription-operations.js';
import { changeUser } from './operations.js';
import { EXTERNAL_ID } from './user-limits.js';

type Counters = PlayerChange['counters'];

/**
 * What the v1 calls keep beyond the install calls' write, in one statement after it: the counters
 * a body gives outright, and one more session (`sessions`) when it gives no count.
 */
async function writeCounters(db: Queryable, id: string, counters: Counters, sessions: 0 | 1): Promise<void> {
  await db.query(
    `UPDATE subscriptions SET
       session_count = coalesce($2, session_count + $5),
       session_time  = coalesce($3, session_time),
       amount_spent  = coalesce($4, amount_spent)
     WHERE id = $1`,
    [id, counters.session_count ?? null, counters.session_time ?? null, counters.amount_spent ?? null, sessions],
  );
}

/**
 * POST /players: registers the token (or updates the install that has it) on `platform`. A
 * registration is a session, as OneSignal counts it, unless the body gives session_count.
 */
export async function registerPlayer(pool: Pool, appId: string, change: PlayerChange, platform: Platform): Promise<{ id: string; created: boolean }> {
  const fields = change.fields as PlayerChange['fields'] & { token: string };
  const written = await writeInstall(pool, appId, { token: fields.token }, fields, async (db) => {
    // The install is written on its platform (a token of the other platform's install: 409).
    const result = await upsertSubscription(db, appId, fields, platform);
    await writeCounters(db, result.id, change.counters, 1);
    return result;
  });
  return { id: written!.id, created: written!.created };
}

/** PUT /players/{id} (sessions 0) and on_session (sessions 1): false when the app has no such install. */
export async function updatePlayer(pool: Pool, appId: string, id: string, change: PlayerChange, sessions: 0 | 1): Promise<boolean> {
  if (!isUuid(id)) return false;
  const installId = id.toLowerCase();
  const written = await writeInstall(pool, appId, { id: installId }, change.fields, async (db) => {
    if (!(await patchSubscription(db, appId, installId, change.fields))) return undefined;
    await writeCounters(db, installId, change.counters, sessions);
    return { id: installId };
  });
  return written !== undefined;
}

/** on_purchase (amount) and on_focus (seconds): adds to the install's sums; false when none. */
export async function addToPlayer(db: Queryable, appId: string, id: string, add: { amount?: number; seconds?: number }): Promise<boolean> {
  if (!isUuid(id)) return false;
  const res = await db.query(
    `UPDATE subscriptions SET amount_spent = amount_spent + $3, session_time = session_time + $4, last_active = now(), updated_at = now()
      WHERE app_id = $1 AND id = $2::uuid`,
    [appId, id.toLowerCase(), add.amount ?? 0, add.seconds ?? 0],
  );
  return (res.rowCount ?? 0) > 0;
}

/** DELETE /players/{id}: the install erased for good, deleteSubscription's operation; undefined when none. */
export const erasePlayer = eraseSubscription;

/**
 * PUT /apps/{app_id}/users/{external_user_id}: the tags on every install of that external id, as
 * updateUser by its external_id alias does. False when no install or user has it.
 */
export async function tagExternalId(pool: Pool, appId: string, externalId: string, tags: Record<string, string | null>): Promise<boolean> {
  try {
    return (await changeUser(pool, appId, { alias: { label: EXTERNAL_ID, id: externalId } }, { tags })) !== undefined;
  } catch (error) {
    // updateUser's 404 is this call's false (its route says it in its own sentence).
    if (error instanceof NotFoundError) return false;
    throw error;
  }
}
