// The user operations (issue 36 point 4): one function per operation of the user calls, each
// owning its transaction and the lock order (transaction.ts: alias names sorted, then users, then
// installs). REST (api/routes/users.ts, user-subscriptions.ts), the dashboard and the v1 player
// calls call these; none assembles a transaction of its own. Each takes the pool and plain input,
// checks the path's parts (alias-path.ts), and returns plain results or throws Herald's errors.
import type { Pool, PoolClient } from '../store/db.js';
import { NotFoundError } from '../errors.js';
import { inUserTransaction } from './transaction.js';
import { findUser, lockNames, userOfInstall } from './resolve.js';
import { addAliases, NO_SUCH_USER, readIdentity, readUser, removeAlias, writeProperties, type PropertiesChange, type UserProperties, type UserView } from './user-store.js';
import { writeNewUser, type CreateUserBody } from './create-user.js';
import { eraseLockedUser, type Erased } from './erase.js';
import { labelToDelete, pathAlias, type AliasRef } from './alias-path.js';
import { USER_LIMITS } from './user-limits.js';

export const NO_SUBSCRIPTION = 'No such subscription.';

/** The user a call names: by one of its aliases, or as the user of one of the app's installs. */
export type UserRef = { alias: AliasRef } | { installId: string };

/**
 * Runs `work` on the user named (404 when none) in one user transaction. `names`: the aliases
 * `work` will add, locked with the named alias before any user (transaction.ts).
 */
function onUser<T>(pool: Pool, appId: string, ref: UserRef, work: (db: PoolClient, userId: string) => Promise<T>, names: Array<[string, string]> = []): Promise<T> {
  const alias = 'alias' in ref ? pathAlias(ref.alias.label, ref.alias.id) : undefined;
  return inUserTransaction(pool, async (db) => {
    if (alias === undefined) {
      if (names.length) await lockNames(db, appId, names);
      const userId = await userOfInstall(db, appId, (ref as { installId: string }).installId);
      if (userId === undefined) throw new NotFoundError(NO_SUBSCRIPTION);
      return work(db, userId);
    }
    if (names.length) await lockNames(db, appId, [[alias.label, alias.id], ...names]);
    const userId = await findUser(db, appId, alias.label, alias.id);
    if (userId === undefined) throw new NotFoundError(NO_SUCH_USER);
    return work(db, userId);
  });
}

export type CreatedUser =
  | { kind: 'created' | 'found'; view: UserView }
  | { kind: 'conflict'; conflicting: Record<string, string> };

/** createUser: a user with its aliases, properties and installs (create-user.ts), and its view. */
export function createUser(pool: Pool, appId: string, body: CreateUserBody): Promise<CreatedUser> {
  return inUserTransaction(pool, async (db) => {
    const made = await writeNewUser(db, appId, body);
    return made.kind === 'conflict' ? made : { kind: made.kind, view: await readUser(db, made.userId) };
  });
}

/** getUser: the user's view (OneSignal's User model). */
export function getUser(pool: Pool, appId: string, ref: UserRef): Promise<UserView> {
  return onUser(pool, appId, ref, (db, userId) => readUser(db, userId));
}

/** updateUser: the user's properties changed on it and its installs at once; those written. */
export function changeUser(pool: Pool, appId: string, ref: UserRef, change: PropertiesChange): Promise<UserProperties | undefined> {
  return onUser(pool, appId, ref, (db, userId) => writeProperties(db, userId, change));
}

/** deleteUser and the dashboard's erasure: the user and everything of it, for good (erase.ts). */
export function eraseUser(pool: Pool, appId: string, ref: UserRef): Promise<Erased> {
  return onUser(pool, appId, ref, (db, userId) => eraseLockedUser(db, appId, userId));
}

/** The user's aliases with its OneSignal id. */
export function getAliases(pool: Pool, appId: string, ref: UserRef): Promise<Record<string, string>> {
  return onUser(pool, appId, ref, (db, userId) => readIdentity(db, userId));
}

/** createAlias: the aliases given to the user (409 when one is another user's); its aliases after. */
export function addUserAliases(pool: Pool, appId: string, ref: UserRef, identity: Record<string, string>): Promise<Record<string, string>> {
  return onUser(pool, appId, ref, async (db, userId) => {
    await addAliases(db, appId, userId, identity);
    return readIdentity(db, userId);
  }, Object.entries(identity));
}

/** deleteAlias: the user's alias of this label gone (404 when it has none); its aliases after. */
export function deleteUserAlias(pool: Pool, appId: string, ref: UserRef, label: string): Promise<Record<string, string>> {
  const checked = labelToDelete(label);
  return onUser(pool, appId, ref, async (db, userId) => {
    if (!(await removeAlias(db, userId, checked))) throw new NotFoundError(`The user has no alias ${checked.slice(0, USER_LIMITS.label)}.`);
    return readIdentity(db, userId);
  });
}
