// The user work of `herald import` (import-installs.ts; issue 36 point 4): the users of
// the installs a file wrote take the file's properties. It runs inside the import's one
// transaction (the rows it reads are that transaction's temporary table), around and after the
// merge, in the lock order of every user call (transaction.ts): the users, then the installs.
import type { PoolClient } from '../store/db.js';
import { COPY_TO_INSTALLS } from '../subscriptions/user-copies.js';

const LOCK_NOT_AVAILABLE = '55P03';
const ATTEMPTS = 5;

/**
 * Runs `merge` (the import's writes of the file's installs) with the users of those installs
 * locked first, sorted. Merging first and updating the users after held installs while waiting
 * for a user, and a user call holds its user while it writes that user's installs: each waited
 * on the other (a deadlock, PostgreSQL ending one of them). The users are read before the merge;
 * an install that joined a user in between (the merge waited for it) is found once the merge holds
 * it, and its user is taken without waiting, or the merge is undone and run again with it planned.
 */
export async function mergeInUserOrder<T>(client: PoolClient, appId: string, merge: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    await client.query('SAVEPOINT import_merge');
    await lockUsersOfFile(client, appId, '');
    const merged = await merge();
    try {
      // The last attempt waits: the order is broken then, but the import is not starved.
      await lockUsersOfFile(client, appId, attempt < ATTEMPTS ? ' NOWAIT' : '');
      await client.query('RELEASE SAVEPOINT import_merge');
      return merged;
    } catch (error) {
      if ((error as { code?: unknown }).code !== LOCK_NOT_AVAILABLE) throw error;
      await client.query('ROLLBACK TO SAVEPOINT import_merge');
    }
  }
}

/** Locks the users of the app's installs the file names, sorted (none to look for when the app has no user). */
async function lockUsersOfFile(client: PoolClient, appId: string, wait: '' | ' NOWAIT'): Promise<void> {
  const any = await client.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM users WHERE app_id = $1) AS any', [appId]);
  if (!any.rows[0].any) return;
  // ORDER BY under FOR UPDATE: the rows are locked in that order.
  await client.query(
    `SELECT u.id FROM users u
      WHERE u.id IN (SELECT s.user_id FROM import_rows r JOIN subscriptions s ON s.app_id = $1 AND s.token = r.token)
      ORDER BY u.id FOR UPDATE${wait}`,
    [appId],
  );
}

/**
 * An imported install that belongs to a user (issue 27): the user owns tags, language and time
 * zone (docs/decisions.md "Issue 27"), so the install's imported values become its user's (the
 * last line of the file wins) and every install of that user carries them again; its external id
 * stays the user's. Installs without a user are untouched. The users are locked already
 * (mergeInUserOrder).
 */
export async function syncUsersOfImported(client: PoolClient, appId: string): Promise<void> {
  await client.query(
    `WITH touched AS (
       SELECT DISTINCT ON (s.user_id) s.user_id, s.tags, s.language, s.timezone
         FROM import_rows r JOIN subscriptions s ON s.app_id = $1 AND s.token = r.token
        WHERE s.user_id IS NOT NULL ORDER BY s.user_id, r.ctid DESC
     ), u AS (
       UPDATE users u SET tags = t.tags, language = t.language, timezone_id = t.timezone, updated_at = now()
         FROM touched t WHERE u.id = t.user_id RETURNING u.*
     )
     UPDATE subscriptions s SET ${COPY_TO_INSTALLS} FROM u WHERE s.user_id = u.id`,
    [appId],
  );
}
