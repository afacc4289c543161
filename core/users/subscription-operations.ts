// The user operations on installs (issue 36 point 4; docs/api.md "Users"): createSubscription
// under a user, transferSubscription, updateSubscriptionByToken, and the erasure of one install
// (deleteSubscription and the v1 DELETE /players/{id}). Each owns its transaction and the lock
// order (transaction.ts); an install or user of another app is not found (404).
import type { Pool } from '../store/db.js';
import { NotFoundError } from '../errors.js';
import { isUuid } from '../formats/uuid.js';
import { storedToken, type Platform } from '../formats/install-type.js';
import { patchSubscription, type SubscriptionFields } from '../subscriptions/subscription-store.js';
import { inUserTransaction, StalePlan } from './transaction.js';
import { aliasUserUnlocked, findUser, lockNames, lockUsers } from './resolve.js';
import { NO_SUCH_USER, readIdentity, readUser, type UserSubscriptionView } from './user-store.js';
import { addInstall, moveInstall } from './user-subscriptions.js';
import type { UserSubscriptionBody } from './create-user.js';
import { eraseInstall, type Erased } from './erase.js';
import { NO_SUBSCRIPTION, onUser, type UserRef } from './operations.js';

/** createSubscription: the install made for the user (created) or the one with its token moved to it. */
export async function addUserSubscription(pool: Pool, appId: string, ref: UserRef, sub: UserSubscriptionBody): Promise<{ created: boolean; subscription: UserSubscriptionView | undefined }> {
  return onUser(pool, appId, ref, async (db, userId) => {
    const written = await addInstall(db, appId, userId, sub);
    const view = await readUser(db, userId);
    return { created: written.created, subscription: view.subscriptions.find((s) => s.id === written.id) };
  });
}

/**
 * transferSubscription: the install moves to the user the alias names; that user's aliases. Both
 * users are locked, sorted, before the install (transaction.ts): two opposite transfers between
 * two users take turns instead of each holding its install and waiting for the other's. The
 * users are planned from unlocked reads; a plan gone stale once they are held runs it again.
 */
export function transferSubscription(pool: Pool, appId: string, installId: string, to: [label: string, id: string]): Promise<Record<string, string>> {
  if (!isUuid(installId)) return Promise.reject(new NotFoundError(NO_SUBSCRIPTION));
  const id = installId.toLowerCase();
  const [label, aliasId] = to;
  return inUserTransaction(pool, async (db) => {
    await lockNames(db, appId, [[label, aliasId]]);
    const from = (await db.query<{ user_id: string | null }>('SELECT user_id FROM subscriptions WHERE app_id = $1 AND id = $2::uuid', [appId, id])).rows[0]?.user_id ?? null;
    const planned = await aliasUserUnlocked(db, appId, label, aliasId);
    await lockUsers(db, [from, planned]);
    const userId = await findUser(db, appId, label, aliasId);
    if (userId === undefined) throw new NotFoundError(NO_SUCH_USER);
    // A user findUser made here (from installs carrying the external id) is this transaction's own row.
    if (planned !== undefined && userId !== planned) throw new StalePlan();
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
