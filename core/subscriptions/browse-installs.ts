// The dashboard's list of an app's installs (issue 27, point 7): pages of INSTALLS_PAGE, newest
// first, by keyset on (app_id, seq) (the audience index, read backwards), so page 1,000 costs what
// page 1 does; and the app's total, an index-only count.
import type { Queryable } from '../store/db.js';
import { INSTALL_SUMMARY_COLUMNS, type InstallSummary } from './find.js';

export const INSTALLS_PAGE = 50;

export interface BrowsedInstall extends InstallSummary {
  seq: number;
  user_id: string | null;
}

/** A page of the app's installs registered before `beforeSeq` (none: the newest), and whether more follow. */
export async function browseInstalls(db: Queryable, appId: string, beforeSeq?: number): Promise<{ installs: BrowsedInstall[]; more: boolean }> {
  const res = await db.query<BrowsedInstall>(
    `SELECT seq, user_id, ${INSTALL_SUMMARY_COLUMNS} FROM subscriptions
      WHERE app_id = $1 AND ($2::bigint IS NULL OR seq < $2) ORDER BY seq DESC LIMIT ${INSTALLS_PAGE + 1}`,
    [appId, beforeSeq ?? null],
  );
  return { installs: res.rows.slice(0, INSTALLS_PAGE), more: res.rows.length > INSTALLS_PAGE };
}

export async function countInstalls(db: Queryable, appId: string): Promise<number> {
  return (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM subscriptions WHERE app_id = $1', [appId])).rows[0].n;
}
