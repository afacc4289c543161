// The user work of `herald import` (core/subscriptions/import.ts; issue 36 point 4): the users of
// the installs a file wrote take the file's properties. It runs inside the import's one
// transaction (the rows it reads are that transaction's temporary table), after the merge.
import type { PoolClient } from '../store/db.js';
import { COPY_TO_INSTALLS } from '../subscriptions/user-copies.js';

/**
 * An imported install that belongs to a user (issue 27): the user owns tags, language and time
 * zone (docs/decisions.md "Issue 27"), so the install's imported values become its user's (the
 * last line of the file wins) and every install of that user carries them again; its external id
 * stays the user's. Installs without a user are untouched.
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
