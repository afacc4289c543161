// Which user a label and id name, and the user of an install, making the user's row when an
// install that no user call has touched yet is named (docs/decisions.md "Users: where tags live").
// Runs inside the caller's transaction: an advisory lock per alias (or install) serialises two
// calls that would make the same user, so an alias never names two users. Locks are taken in the
// one order of transaction.ts: names, then users, then installs.
import { randomUUID } from 'node:crypto';
import type { PoolClient } from '../store/db.js';
import { isUuid } from '../formats/uuid.js';
import { EXTERNAL_ID, ONESIGNAL_ID } from './user-limits.js';
import { copyToInstalls } from '../subscriptions/user-copies.js';
import { StalePlan } from './transaction.js';

const nameKey = (appId: string, label: string, id: string) => JSON.stringify([appId, label, id]);

/** Locks the (app, label, id) name for the rest of the transaction (taken again: no effect). */
export async function lockName(db: PoolClient, appId: string, label: string, id: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 27))', [nameKey(appId, label, id)]);
}

/**
 * Locks every alias name a call will use before it locks any user, in one sorted order, so two
 * calls naming the same aliases never wait on each other in a circle (the OneSignal id is a user
 * row, not a name: left out).
 */
export async function lockNames(db: PoolClient, appId: string, names: Array<[label: string, id: string]>): Promise<void> {
  const keys = [...new Set(names.filter(([label]) => label !== ONESIGNAL_ID).map(([label, id]) => nameKey(appId, label, id)))].sort();
  for (const key of keys) await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 27))', [key]);
}

/**
 * Locks these users in one order (sorted by id; ORDER BY under FOR UPDATE locks the rows in that
 * order), so two calls that each change two users never hold one each and wait on the other.
 */
export async function lockUsers(db: PoolClient, userIds: Array<string | null | undefined>): Promise<void> {
  const ids = [...new Set(userIds.filter((id): id is string => typeof id === 'string'))];
  if (ids.length) await db.query('SELECT id FROM users WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE', [ids]);
}

/** The user an alias names as read without a lock (a plan: locked next, then read again), or undefined. */
export async function aliasUserUnlocked(db: PoolClient, appId: string, label: string, id: string): Promise<string | undefined> {
  if (label === ONESIGNAL_ID) return isUuid(id) ? id.toLowerCase() : undefined;
  const res = await db.query<{ user_id: string }>('SELECT user_id FROM user_aliases WHERE app_id = $1 AND label = $2 AND alias_id = $3', [appId, label, id]);
  return res.rows[0]?.user_id;
}

/**
 * Whether installs carry the external id (the `idParam` parameter, app $1) with no user row: the
 * app registered them before any user call named it. None appears while the external id is an
 * alias (the app's login joins its owner) or while its name is locked.
 */
const LOOSE = (idParam: string) => `EXISTS (SELECT 1 FROM subscriptions WHERE app_id = $1 AND external_id = ${idParam} AND user_id IS NULL)`;

/** The alias's user, locked (users before installs), and for an external id whether loose installs carry it. */
async function readAlias(db: PoolClient, appId: string, label: string, id: string): Promise<{ userId: string; loose: boolean } | undefined> {
  const res = await db.query<{ user_id: string; loose: boolean }>(
    `SELECT u.id AS user_id, ${label === EXTERNAL_ID ? LOOSE('$3') : 'false'} AS loose
       FROM user_aliases a JOIN users u ON u.id = a.user_id
      WHERE a.app_id = $1 AND a.label = $2 AND a.alias_id = $3 FOR UPDATE OF u`,
    [appId, label, id],
  );
  return res.rows[0] && { userId: res.rows[0].user_id, loose: res.rows[0].loose };
}

/** The user named by label and id, or undefined; `external_id` also finds installs not yet made a user. */
export async function findUser(db: PoolClient, appId: string, label: string, id: string): Promise<string | undefined> {
  if (label === ONESIGNAL_ID) {
    if (!isUuid(id)) return undefined;
    const res = await db.query<{ id: string }>('SELECT id FROM users WHERE app_id = $1 AND id = $2::uuid FOR UPDATE', [appId, id.toLowerCase()]);
    return res.rows[0]?.id;
  }
  // A known alias (the common case): its user locked in one statement. Otherwise the name's lock
  // first, and read again: two calls that would make a user for it take turns.
  let alias = await readAlias(db, appId, label, id);
  if (alias === undefined) {
    await lockName(db, appId, label, id);
    alias = await readAlias(db, appId, label, id);
  }
  const found = alias?.userId;
  if (label !== EXTERNAL_ID) return found;
  const anyLoose = alias !== undefined ? alias.loose : (await db.query<{ loose: boolean }>(`SELECT ${LOOSE('$2')} AS loose`, [appId, id])).rows[0].loose;
  if (!anyLoose) return found;
  // Installs that carry the external id with no user row (registered by the app before any user
  // call named it) are the user's: they join it, uniting their tags (the latest write wins).
  const loose = await db.query<{ id: string }>(
    'SELECT id FROM subscriptions WHERE app_id = $1 AND external_id = $2 AND user_id IS NULL ORDER BY updated_at FOR UPDATE',
    [appId, id],
  );
  if (found === undefined && !loose.rowCount) return undefined;
  // A user made here is a row of this transaction: no one else can lock it.
  const userId = found ?? (await makeUserFromInstalls(db, appId, loose.rows.map((r) => r.id)));
  if (found === undefined) await db.query('INSERT INTO user_aliases (app_id, label, alias_id, user_id) VALUES ($1, $2, $3, $4)', [appId, EXTERNAL_ID, id, userId]);
  else if (loose.rowCount) await adopt(db, userId, loose.rows.map((r) => r.id));
  // Only installs that just joined need the user's properties (the others carry them already).
  if (loose.rowCount) await copyToInstalls(db, userId);
  return userId;
}

/**
 * The user of an install of the app (made from the install when it has none), or undefined. The
 * install is read without a lock and its user locked first (users before installs); an install
 * that moved in between runs the call again (StalePlan).
 */
export async function userOfInstall(db: PoolClient, appId: string, installId: string): Promise<string | undefined> {
  if (!isUuid(installId)) return undefined;
  const id = installId.toLowerCase();
  const read = (lock: string) => db.query<{ user_id: string | null; external_id: string | null }>(
    `SELECT user_id, external_id FROM subscriptions WHERE app_id = $1 AND id = $2::uuid${lock}`, [appId, id],
  );
  const row = (await read('')).rows[0];
  if (!row) return undefined;
  let userId: string | undefined;
  if (row.user_id) userId = await lockUser(db, row.user_id);
  else if (row.external_id !== null) userId = await findUser(db, appId, EXTERNAL_ID, row.external_id);
  else {
    // An install of its own: its name serialises two calls that would make its user.
    await lockName(db, appId, 'subscription', id);
    const held = (await read(' FOR UPDATE')).rows[0];
    if (!held) return undefined;
    if (held.user_id !== null || held.external_id !== null) throw new StalePlan();
    return lockUser(db, await makeUserFromInstalls(db, appId, [id]));
  }
  const now = (await read('')).rows[0];
  if (!now) return undefined;
  if (userId === undefined || now.user_id !== userId) throw new StalePlan();
  return userId;
}

/** A new user holding these installs, its properties theirs (the latest updated wins a tag). */
async function makeUserFromInstalls(db: PoolClient, appId: string, installIds: string[]): Promise<string> {
  const userId = randomUUID();
  await db.query(
    `WITH i AS (SELECT * FROM subscriptions WHERE id = ANY($3::uuid[]) ORDER BY updated_at)
     INSERT INTO users (id, app_id, tags, language, timezone_id, created_at, last_active)
     SELECT $1, $2,
            coalesce((SELECT jsonb_object_agg(t.key, t.value ORDER BY i.updated_at) FROM i, jsonb_each(i.tags) t), '{}'),
            (SELECT language FROM i WHERE language IS NOT NULL ORDER BY updated_at DESC LIMIT 1),
            (SELECT timezone FROM i WHERE timezone IS NOT NULL ORDER BY updated_at DESC LIMIT 1),
            (SELECT min(created_at) FROM i), coalesce((SELECT max(last_active) FROM i), now())`,
    [userId, appId, installIds],
  );
  await adopt(db, userId, installIds);
  return userId;
}

async function adopt(db: PoolClient, userId: string, installIds: string[]): Promise<void> {
  await db.query('UPDATE subscriptions SET user_id = $1 WHERE id = ANY($2::uuid[])', [userId, installIds]);
}

async function lockUser(db: PoolClient, userId: string): Promise<string | undefined> {
  const res = await db.query<{ id: string }>('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
  return res.rows[0]?.id;
}
