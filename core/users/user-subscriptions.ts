// The subscription calls of a user (issue 27; docs/api.md "Users"): createSubscription under a
// user, transferSubscription to another user, and updateSubscriptionByToken. An install that moves
// takes its new user's properties and external id (user-copies.ts), and a user never holds more
// than USER_LIMITS.subscriptions installs: the move that would make the 21st is OneSignal's 409.
// Every function runs in the caller's transaction, after resolve.ts locked the user named.
import type { PoolClient } from '../store/db.js';
import { copyToInstalls } from '../subscriptions/user-copies.js';
import { attachInstall, type UserSubscriptionBody } from './create-user.js';
import { checkRoom } from './user-store.js';
import { StalePlan } from './transaction.js';
import { platformOf, storedToken } from '../formats/install-type.js';

/**
 * createSubscription: the install with this token made, or moved to the user (OneSignal moves an
 * existing token). `from`: the token's install's user as the caller planned (and locked) it.
 */
export async function addInstall(db: PoolClient, appId: string, userId: string, sub: UserSubscriptionBody, from: string | null): Promise<{ id: string; created: boolean }> {
  const token = storedToken(platformOf(sub.type), sub.token);
  const before = await db.query<{ user_id: string | null }>('SELECT user_id FROM subscriptions WHERE app_id = $1 AND token = $2', [appId, token]);
  if ((before.rows[0]?.user_id ?? null) !== from) throw new StalePlan();
  const written = await attachInstall(db, appId, userId, sub);
  await checkRoom(db, userId, 'subscription');
  await copyToInstalls(db, userId);
  await dropEmptied(db, before.rows[0]?.user_id ?? null, userId);
  return written;
}

/**
 * transferSubscription: the install moves to the user; false when the app has no such install.
 * `from`: its user as the caller planned (and locked) it; another one now is a StalePlan.
 */
export async function moveInstall(db: PoolClient, appId: string, installId: string, userId: string, from: string | null): Promise<boolean> {
  const res = await db.query<{ old: string | null }>(
    `UPDATE subscriptions s SET user_id = $3, updated_at = now()
       FROM (SELECT id, user_id AS old FROM subscriptions WHERE app_id = $1 AND id = $2::uuid FOR UPDATE) o
      WHERE s.id = o.id RETURNING o.old`,
    [appId, installId, userId],
  );
  if (!res.rowCount) return false;
  if (res.rows[0].old !== from) throw new StalePlan();
  await checkRoom(db, userId, 'identity');
  await copyToInstalls(db, userId);
  await dropEmptied(db, res.rows[0].old, userId);
  return true;
}

/**
 * The user an install left, gone when it now has no install and no alias (OneSignal deletes such a
 * user: nothing could name it again). SKIP LOCKED: a call holding that user (it takes users before
 * installs, docs/decisions.md "lock order") keeps it, rather than this call waiting on it while
 * holding the install that call may want.
 */
async function dropEmptied(db: PoolClient, oldUserId: string | null, newUserId: string): Promise<void> {
  if (oldUserId === null || oldUserId === newUserId) return;
  await db.query(
    `DELETE FROM users WHERE id = (SELECT id FROM users WHERE id = $1 FOR UPDATE SKIP LOCKED)
        AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE user_id = $1) AND NOT EXISTS (SELECT 1 FROM user_aliases WHERE user_id = $1)`,
    [oldUserId],
  );
}
