// The app-facing install calls under the user model (docs/decisions.md "Users: where tags live"):
// an install the app registers is a user of its own; an external id joins it to the user that
// has it, as OneSignal's login does. Called after the install's own row was written
// (core/subscriptions/subscription-store.ts), in the same transaction. An install no user call
// has touched (no user row) and whose external id names no user keeps the row it has: nothing
// more is written on that path, the common one.
import { randomUUID } from 'node:crypto';
import type { PoolClient } from '../store/db.js';
import { ConflictError } from '../errors.js';
import type { SubscriptionFields } from '../subscriptions/subscription-store.js';
import { lockName } from './resolve.js';
import { copyToInstalls } from '../subscriptions/user-copies.js';
import { writeProperties } from './user-store.js';
import { EXTERNAL_ID, USER_LIMITS } from './user-limits.js';

export async function joinInstallToUser(db: PoolClient, appId: string, installId: string, fields: SubscriptionFields): Promise<void> {
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
  if (Number(count.rows[0].n) >= USER_LIMITS.subscriptions) {
    throw new ConflictError(`external_id: the user ${externalId} already holds ${USER_LIMITS.subscriptions} subscriptions; delete one of them first.`);
  }
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
