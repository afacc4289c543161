// The user operations on installs (issue 36 point 4; docs/api.md "Users"): createSubscription
// under a user, transferSubscription, updateSubscriptionByToken, and the erasure of one install
// (deleteSubscription and the v1 DELETE /players/{id}). Each owns its transaction and the lock
// order (transaction.ts); an install or user of another app is not found (404).
import type { Pool, PoolClient } from '../store/db.js';
import { NotFoundError } from '../errors.js';
import { isUuid } from '../formats/uuid.js';
import { platformOf, storedToken, type Platform } from '../formats/install-type.js';
import { patchSubscription, type SubscriptionFields } from '../subscriptions/subscription-store.js';
import { inUserTransaction, StalePlan } from './transaction.js';
import { aliasUserUnlocked, findUser, lockNames, lockUsers } from './resolve.js';
import { NO_SUCH_USER, readIdentity, readUser, type UserSubscriptionView } from './user-store.js';
import { addInstall, moveInstall } from './user-subscriptions.js';
import type { UserSubscriptionBody } from './create-user.js';
import { eraseInstall, type Erased } from './erase.js';
import { NO_SUBSCRIPTION } from './operations.js';
import { pathAlias, type AliasRef } from './alias-path.js';

/**
 * The user the alias names, locked together with `from` (the user of the install the call will
 * move) in one sorted order before any install (transaction.ts), or 404. Both are planned from
 * unlocked reads; a plan gone stale once they are held runs the call again (StalePlan).
 */
async function lockUserAndOwner(db: PoolClient, appId: string, [label, aliasId]: [string, string], from: string | null): Promise<string> {
  await lockNames(db, appId, [[label, aliasId]]);
  const planned = await aliasUserUnlocked(db, appId, label, aliasId);
  await lockUsers(db, [from, planned]);
  const userId = await findUser(db, appId, label, aliasId);
  if (userId === undefined) throw new NotFoundError(NO_SUCH_USER);
  // A user findUser made here (from installs carrying the external id) is this transaction's own row.
  if (planned !== undefined && userId !== planned) throw new StalePlan();
  return userId;
}

/**
 * createSubscription: the install made for the user (created) or the one with its token moved to
 * it. The token's install's user is locked with the user named: two users taking each other's
 * tokens at once take turns.
 */
export async function addUserSubscription(pool: Pool, appId: string, named: AliasRef, sub: UserSubscriptionBody): Promise<{ created: boolean; subscription: UserSubscriptionView | undefined }> {
  const { label, id } = pathAlias(named.label, named.id);
  const token = storedToken(platformOf(sub.type), sub.token);
  return inUserTransaction(pool, async (db) => {
    const from = (await db.query<{ user_id: string | null }>('SELECT user_id FROM subscriptions WHERE app_id = $1 AND token = $2', [appId, token])).rows[0]?.user_id ?? null;
    const userId = await lockUserAndOwner(db, appId, [label, id], from);
    const written = await addInstall(db, appId, userId, sub, from);
    const view = await readUser(db, userId);
    return { created: written.created, subscription: view.subscriptions.find((s) => s.id === written.id) };
  });
}

/**
 * transferSubscription: the install moves to the user the alias names; that user's aliases. Both
 * users are locked before the install: two opposite transfers between two users take turns
 * instead of each holding its install and waiting for the other's.
 */
export function transferSubscription(pool: Pool, appId: string, installId: string, to: [label: string, id: string]): Promise<Record<string, string>> {
  if (!isUuid(installId)) return Promise.reject(new NotFoundError(NO_SUBSCRIPTION));
  const id = installId.toLowerCase();
  const [label, aliasId] = to;
  return inUserTransaction(pool, async (db) => {
    const from = (await db.query<{ user_id: string | null }>('SELECT user_id FROM subscriptions WHERE app_id = $1 AND id = $2::uuid', [appId, id])).rows[0]?.user_id ?? null;
    const userId = await lockUserAndOwner(db, appId, [label, aliasId], from);
    if (!(await moveInstall(db, appId, id, userId, from))) throw new NotFoundError(NO_SUBSCRIPTION);
    return readIdentity(db, userId);
  });
}

/** updateSubscriptionByToken: the fields of the install with this token on this platform; its id. */
export async function changeSubscriptionByToken(pool: Pool, appId: string, install: { platform: Platform; token: string }, fields: SubscriptionFields): Promise<string> {
  const id = await inUserTransaction(pool, async (db) => {
    // An install of the other platform with this token string is not the one named (docs/decisions.md).
    const found = await db.query<{ id: string }>('SELECT id FROM subscriptions WHERE app_id = $1 AND token = $2 AND platform = $3', [appId, storedToken(install.platform, install.token), install.platform]);
    const installId = found.rows[0]?.id;
    if (installId === undefined || !(await patchSubscription(db, appId, installId, fields))) return undefined;
    return installId;
  });
  if (id === undefined) throw new NotFoundError(NO_SUBSCRIPTION);
  return id;
}

/** deleteSubscription and DELETE /players/{id}: the install erased for good; undefined when none. */
export async function eraseSubscription(pool: Pool, appId: string, installId: string): Promise<Erased | undefined> {
  if (!isUuid(installId)) return undefined;
  return inUserTransaction(pool, (db) => eraseInstall(db, appId, installId.toLowerCase()));
}
