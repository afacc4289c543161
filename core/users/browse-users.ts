// The dashboard's list of an app's users (issue 27, point 7): pages of USERS_PAGE by OneSignal id
// (the primary key's order, so a page is one index range at any size), each with its external id
// and how many aliases, installs and tags it holds, and the app's total. Only users with a row:
// an install no user call has named is a user of its own, listed with the installs.
import type { Queryable } from '../store/db.js';
import { isUuid } from '../formats/uuid.js';
import { EXTERNAL_ID } from './user-limits.js';
import type { BrowsedInstall } from '../subscriptions/browse-installs.js';
import { INSTALL_SUMMARY_COLUMNS } from '../subscriptions/find.js';

export const USERS_PAGE = 50;

export interface UserSummary {
  id: string;
  external_id: string | null;
  aliases: number;
  installs: number;
  tags: number;
  last_active: Date;
}

/** A page of the app's users after `after` (a OneSignal id; none or not a UUID: the first page), and whether more follow. */
export async function browseUsers(db: Queryable, appId: string, after?: string): Promise<{ users: UserSummary[]; more: boolean }> {
  const res = await db.query<UserSummary>(
    `SELECT u.id, u.last_active,
            (SELECT a.alias_id FROM user_aliases a WHERE a.user_id = u.id AND a.label = $3) AS external_id,
            (SELECT count(*)::int FROM user_aliases a WHERE a.user_id = u.id) AS aliases,
            (SELECT count(*)::int FROM subscriptions s WHERE s.user_id = u.id) AS installs,
            (SELECT count(*)::int FROM jsonb_object_keys(u.tags)) AS tags
       FROM users u WHERE u.app_id = $1 AND ($2::uuid IS NULL OR u.id > $2::uuid)
      ORDER BY u.id LIMIT ${USERS_PAGE + 1}`,
    [appId, after && isUuid(after) ? after.toLowerCase() : null, EXTERNAL_ID],
  );
  return { users: res.rows.slice(0, USERS_PAGE), more: res.rows.length > USERS_PAGE };
}

export async function countUsers(db: Queryable, appId: string): Promise<number> {
  return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE app_id = $1', [appId])).rows[0].n;
}

/** Whether the user is the app's (a page of another app's user is a 404 like an unknown one). */
export async function userOfApp(db: Queryable, appId: string, userId: string): Promise<boolean> {
  if (!isUuid(userId)) return false;
  return !!(await db.query('SELECT 1 FROM users WHERE app_id = $1 AND id = $2::uuid', [appId, userId.toLowerCase()])).rowCount;
}

/** The user's installs in registration order, with what an install's sends are rebuilt from. */
export async function installsOfUser(db: Queryable, appId: string, userId: string): Promise<BrowsedInstall[]> {
  const res = await db.query<BrowsedInstall>(
    `SELECT seq, user_id, ${INSTALL_SUMMARY_COLUMNS} FROM subscriptions WHERE app_id = $1 AND user_id = $2::uuid ORDER BY seq`,
    [appId, userId],
  );
  return res.rows;
}
