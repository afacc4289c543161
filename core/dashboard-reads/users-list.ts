// One user model on every dashboard page (issue 40 point 5). A user is a users row (made or named
// by a user call) or, before any user call names it, the installs the app registered with one
// external id (core/users/resolve.ts makes its row lazily, from those installs, the first time it
// is named). Both are listed, paged and counted as users; an install with an external id belongs to
// that user; only an install with neither is a user of its own. Nothing here writes: a page never
// makes a user row, as findUser would. Every query is one app's.
import type { Queryable } from '../store/db.js';
import { isUuid } from '../formats/uuid.js';
import { browseUsers, countUsers, USERS_PAGE, type UserSummary } from '../users/browse-users.js';
import { EXTERNAL_ID, ONESIGNAL_ID } from '../users/user-limits.js';
import { INSTALL_SUMMARY_COLUMNS } from '../subscriptions/find.js';
import type { BrowsedInstall } from '../subscriptions/browse-installs.js';

/** A user named only by the external id its installs carry (no users row yet). */
export interface UnnamedUser {
  external_id: string;
  installs: number;
  tags: number;
  last_active: Date | null;
}

export type UserEntry = ({ kind: 'user' } & UserSummary) | ({ kind: 'unnamed' } & UnnamedUser);

/** Where a page begins: after a users row (OneSignal id order), then after an external id (text order). */
export type UsersCursor = { after: string } | { afterExternal: string } | undefined;

/** The installs carrying an external id with no user row, none of whose external ids is a user's alias. */
const UNNAMED = `s.app_id = $1 AND s.user_id IS NULL AND s.external_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM user_aliases a WHERE a.app_id = $1 AND a.label = '${EXTERNAL_ID}' AND a.alias_id = s.external_id)`;

async function unnamedUsers(db: Queryable, appId: string, after: string | null, limit: number): Promise<UnnamedUser[]> {
  const res = await db.query<UnnamedUser & { installs: number; tags: number }>(
    `SELECT s.external_id, count(*)::int AS installs, max(s.last_active) AS last_active,
            (SELECT count(DISTINCT k)::int FROM subscriptions t, jsonb_object_keys(t.tags) k WHERE t.app_id = $1 AND t.user_id IS NULL AND t.external_id = s.external_id) AS tags
       FROM subscriptions s WHERE ${UNNAMED} AND ($2::text IS NULL OR s.external_id > $2)
      GROUP BY s.external_id ORDER BY s.external_id LIMIT ${limit}`,
    [appId, after],
  );
  return res.rows;
}

/** A page of the app's users: its users rows first (by OneSignal id), then its unnamed users (by external id). */
export async function browseAllUsers(db: Queryable, appId: string, cursor: UsersCursor): Promise<{ entries: UserEntry[]; next: UsersCursor }> {
  const entries: UserEntry[] = [];
  if (!cursor || 'after' in cursor) {
    const { users, more } = await browseUsers(db, appId, cursor?.after);
    entries.push(...users.map((u) => ({ kind: 'user' as const, ...u })));
    if (more) return { entries, next: { after: users.at(-1)!.id } };
  }
  const room = USERS_PAGE - entries.length;
  const unnamed = await unnamedUsers(db, appId, cursor && 'afterExternal' in cursor ? cursor.afterExternal : null, room + 1);
  entries.push(...unnamed.slice(0, room).map((u) => ({ kind: 'unnamed' as const, ...u })));
  if (unnamed.length > room) return { entries, next: { afterExternal: unnamed[room - 1]?.external_id ?? '' } };
  return { entries, next: undefined };
}

/** Users rows and unnamed users together. */
export async function countAllUsers(db: Queryable, appId: string): Promise<number> {
  const [rows, unnamed] = await Promise.all([
    countUsers(db, appId),
    db.query<{ n: number }>(`SELECT count(DISTINCT s.external_id)::int AS n FROM subscriptions s WHERE ${UNNAMED}`, [appId]),
  ]);
  return rows + unnamed.rows[0].n;
}

/** The users row an alias names (any label, or onesignal_id), without making one. */
export async function userOfAlias(db: Queryable, appId: string, label: string, id: string): Promise<string | undefined> {
  if (label === ONESIGNAL_ID) {
    if (!isUuid(id)) return undefined;
    return (await db.query<{ id: string }>('SELECT id FROM users WHERE app_id = $1 AND id = $2::uuid', [appId, id.toLowerCase()])).rows[0]?.id;
  }
  return (await db.query<{ user_id: string }>('SELECT user_id FROM user_aliases WHERE app_id = $1 AND label = $2 AND alias_id = $3', [appId, label, id])).rows[0]?.user_id;
}

export interface UnnamedUserView {
  external_id: string;
  /** As the user's row would take them when it is made: tags united, the latest written winning a key. */
  tags: Record<string, string>;
  language: string | null;
  timezone: string | null;
  first_active: Date;
  last_active: Date | null;
  installs: Array<BrowsedInstall & { seq: number }>;
}

/** The unnamed user of an external id (its installs with no users row), or undefined. */
export async function unnamedUser(db: Queryable, appId: string, externalId: string): Promise<UnnamedUserView | undefined> {
  const res = await db.query<BrowsedInstall & { tags: Record<string, string>; timezone: string | null; updated_at: Date }>(
    `SELECT s.seq, s.user_id, ${INSTALL_SUMMARY_COLUMNS.split(', ').map((c) => `s.${c}`).join(', ')}, s.tags, s.timezone, s.updated_at
       FROM subscriptions s WHERE ${UNNAMED} AND s.external_id = $2 ORDER BY s.updated_at, s.seq`,
    [appId, externalId],
  );
  if (!res.rows.length) return undefined;
  const rows = res.rows;
  const latest = <K extends 'language' | 'timezone'>(k: K) => [...rows].reverse().find((r) => r[k] !== null)?.[k] ?? null;
  return {
    external_id: externalId,
    tags: Object.assign({}, ...rows.map((r) => r.tags)),
    language: latest('language'),
    timezone: latest('timezone'),
    first_active: new Date(Math.min(...rows.map((r) => r.created_at.getTime()))),
    last_active: rows.reduce<Date | null>((m, r) => (r.last_active && (!m || r.last_active > m) ? r.last_active : m), null),
    installs: rows.map(({ tags: _t, timezone: _z, updated_at: _u, ...install }) => install).sort((a, b) => Number(a.seq) - Number(b.seq)),
  };
}
