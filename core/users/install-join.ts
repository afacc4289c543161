// The app-facing install calls under the user model (docs/decisions.md "Users: where tags live"):
// an install the app registers is a user of its own; an external id joins it to the user that
// has it, as OneSignal's login does. writeInstall runs the app's write of the install's own row
// (core/subscriptions/subscription-store.ts) and the join in one transaction, its locks taken in
// the order every user call takes them (transaction.ts): the external id's name, the users, and
// only then the install. An install no user call has touched (no user row) and whose external id
// names no user keeps the row it has: nothing more is written on that path, the common one.
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from '../store/db.js';
import { ConflictError } from '../errors.js';
import type { SubscriptionFields } from '../subscriptions/subscription-store.js';
import { lockName } from './resolve.js';
import { inUserTransaction, StalePlan } from './transaction.js';
import { copyToInstalls } from '../subscriptions/user-copies.js';
import { writeProperties } from './user-store.js';
import { EXTERNAL_ID, USER_LIMITS } from './user-limits.js';

/** The install a call names: by token (a registration) or by id (an update). */
export type InstallKey = { token: string } | { id: string };

/**
 * The app's write of one install (`write`: its own row; undefined when there is none) and its
 * join to a user, in one transaction. The locks the join may need are taken before the install's
 * row; the install's user is read for that without a lock, so a move in between (seen once the
 * row is held) runs the whole call again (StalePlan).
 */
export function writeInstall<T extends { id: string }>(
  pool: Pool, appId: string, key: InstallKey, fields: SubscriptionFields, write: (db: PoolClient) => Promise<T | undefined>,
): Promise<T | undefined> {
  return inUserTransaction(pool, async (db) => {
    const planned = await lockForInstall(db, appId, key, fields);
    const written = await write(db);
    if (written === undefined) return undefined;
    const now = await db.query<{ user_id: string | null }>('SELECT user_id FROM subscriptions WHERE id = $1', [written.id]);
    if ((now.rows[0]?.user_id ?? null) !== planned) throw new StalePlan();
    if (planned !== null || typeof fields.external_id === 'string') await joinInstallToUser(db, appId, written.id, fields);
    return written;
  });
}

/**
 * Locks what the join may change, in the one order: the external id's name (its owner read under
 * it), then the install's user and that owner, sorted. Returns the install's user as read.
 */
async function lockForInstall(db: PoolClient, appId: string, key: InstallKey, fields: SubscriptionFields): Promise<string | null> {
  const found = 'token' in key
    ? await db.query<{ user_id: string | null }>('SELECT user_id FROM subscriptions WHERE app_id = $1 AND token = $2', [appId, key.token])
    : await db.query<{ user_id: string | null }>('SELECT user_id FROM subscriptions WHERE app_id = $1 AND id = $2::uuid', [appId, key.id]);
  const current = found.rows[0]?.user_id ?? null;
  const users = current === null ? [] : [current];
  if (typeof fields.external_id === 'string') {
    const owner = await aliasOwner(db, appId, fields.external_id);
    if (owner !== undefined) users.push(owner);
  }
  // ORDER BY under FOR UPDATE: the rows are locked in that order.
  if (users.length) await db.query('SELECT id FROM users WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE', [users]);
  return current;
}

async function joinInstallToUser(db: PoolClient, appId: string, installId: string, fields: SubscriptionFields): Promise<void> {
  const row = (await db.query<{ user_id: string | null; tags: Record<string, string>; language: string | null; timezone: string | null }>(
    'SELECT user_id, tags, language, timezone FROM subscriptions WHERE id = $1 FOR UPDATE', [installId],
  )).rows[0];
  if (!row) return;
  let userId = row.user_id;
  if ('external_id' in fields) {
    const wanted = fields.external_id ?? null;
    const owner = wanted === null ? undefined : await aliasOwner(db, appId, wanted);
    const current = userId === null ? null : await externalIdOf(db, userId);
    if (owner !== undefined && owner !== userId) {
      // Login to a known user: the install moves to it and takes its properties.
      await moveInstall(db, installId, owner, wanted!);
      userId = owner;
    } else if (owner === undefined && userId !== null && current !== wanted) {
      if (current === null && wanted !== null) {
        // The install's anonymous user is identified: it keeps its properties.
        await db.query('INSERT INTO user_aliases (app_id, label, alias_id, user_id) VALUES ($1, $2, $3, $4)', [appId, EXTERNAL_ID, wanted, userId]);
      } else {
        // Login as someone new, or logout: the install leaves for a user of its own.
        userId = await userFromInstall(db, appId, installId, row, wanted);
      }
    } else if (owner === undefined && userId === null && wanted !== null) {
      // An install of no user row carrying an external id no user has: the installs carrying it
      // become one user when a user call names it (resolve.ts), so they are bounded as a user's
      // (under the name's lock, taken by aliasOwner; this install's row already written).
      const loose = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM subscriptions WHERE app_id = $1 AND external_id = $2 AND user_id IS NULL', [appId, wanted]);
      if (loose.rows[0].n > USER_LIMITS.subscriptions) throw fullUser(wanted);
    }
  }
  if (userId === null) return;
  const touched = fields.tags !== undefined || 'language' in fields || 'timezone' in fields;
  if (!touched) return copyToInstalls(db, userId);
  const change: Parameters<typeof writeProperties>[2] = { tags: fields.tags };
  if ('language' in fields && fields.language !== null) change.language = fields.language;
  if ('timezone' in fields && fields.timezone !== null) change.timezone_id = fields.timezone;
  await writeProperties(db, userId, change);
}

async function aliasOwner(db: PoolClient, appId: string, externalId: string): Promise<string | undefined> {
  await lockName(db, appId, EXTERNAL_ID, externalId);
  const res = await db.query<{ user_id: string }>('SELECT user_id FROM user_aliases WHERE app_id = $1 AND label = $2 AND alias_id = $3', [appId, EXTERNAL_ID, externalId]);
  return res.rows[0]?.user_id;
}

async function externalIdOf(db: PoolClient, userId: string): Promise<string | null> {
  const res = await db.query<{ alias_id: string }>('SELECT alias_id FROM user_aliases WHERE user_id = $1 AND label = $2', [userId, EXTERNAL_ID]);
  return res.rows[0]?.alias_id ?? null;
}

async function moveInstall(db: PoolClient, installId: string, userId: string, externalId: string): Promise<void> {
  await db.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
  const count = await db.query<{ n: string }>('SELECT count(*) AS n FROM subscriptions WHERE user_id = $1', [userId]);
  if (Number(count.rows[0].n) >= USER_LIMITS.subscriptions) throw fullUser(externalId);
  await db.query('UPDATE subscriptions SET user_id = $2 WHERE id = $1', [installId, userId]);
  await copyToInstalls(db, userId);
}

async function userFromInstall(
  db: PoolClient, appId: string, installId: string,
  row: { tags: Record<string, string>; language: string | null; timezone: string | null }, externalId: string | null,
): Promise<string> {
  const userId = randomUUID();
  await db.query('INSERT INTO users (id, app_id, tags, language, timezone_id) VALUES ($1, $2, $3, $4, $5)', [userId, appId, JSON.stringify(row.tags), row.language, row.timezone]);
  if (externalId !== null) await db.query('INSERT INTO user_aliases (app_id, label, alias_id, user_id) VALUES ($1, $2, $3, $4)', [appId, EXTERNAL_ID, externalId, userId]);
  await db.query('UPDATE subscriptions SET user_id = $2 WHERE id = $1', [installId, userId]);
  return userId;
}

/** OneSignal's 409 for a login that would give the external id's user more than its subscriptions. */
function fullUser(externalId: string): ConflictError {
  return new ConflictError(`external_id: the user ${externalId} already holds ${USER_LIMITS.subscriptions} subscriptions; delete one of them first.`);
}
