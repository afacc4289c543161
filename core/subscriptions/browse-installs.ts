// The dashboard's list of an app's installs (issue 27, point 7): pages of INSTALLS_PAGE, newest
// first, by keyset on (app_id, seq) (the audience index, read backwards), so page 1,000 costs what
// page 1 does; and the app's total, an index-only count. Either for one platform (issue 39 point 8).
import type { Queryable } from '../store/db.js';
import { INSTALL_SUMMARY_COLUMNS, type InstallPlatform, type InstallSummary } from './find.js';

export const INSTALLS_PAGE = 50;

export interface BrowsedInstall extends InstallSummary {
  seq: number;
  user_id: string | null;
}

/**
 * A page of the app's installs registered before `beforeSeq` (none: the newest), and whether more
 * follow; `platform` keeps one platform's. Android's pages come from their own index (migration
 * 074), iOS's from the audience index skipping Android rows.
 */
export async function browseInstalls(db: Queryable, appId: string, beforeSeq?: number, platform?: InstallPlatform): Promise<{ installs: BrowsedInstall[]; more: boolean }> {
  const res = await db.query<BrowsedInstall>(
    `SELECT seq, user_id, ${INSTALL_SUMMARY_COLUMNS} FROM subscriptions
      WHERE app_id = $1 AND ($2::bigint IS NULL OR seq < $2) ${platform ? 'AND platform = $3' : ''} ORDER BY seq DESC LIMIT ${INSTALLS_PAGE + 1}`,
    platform ? [appId, beforeSeq ?? null, platform] : [appId, beforeSeq ?? null],
  );
  return { installs: res.rows.slice(0, INSTALLS_PAGE), more: res.rows.length > INSTALLS_PAGE };
}

/** The app's installs (of `platform`): index-only counts, iOS's being all but Android's. */
export async function countInstalls(db: Queryable, appId: string, platform?: InstallPlatform): Promise<number> {
  const all = 'SELECT count(*) FROM subscriptions WHERE app_id = $1';
  const android = `SELECT count(*) FROM subscriptions WHERE app_id = $1 AND platform = 'android'`;
  const text = platform === 'android' ? android : platform === 'ios' ? `SELECT (${all}) - (${android})` : all;
  return Number((await db.query<{ n: string }>(`SELECT (${text}) AS n`, [appId])).rows[0].n);
}

/**
 * One install's platform (subscriptions.platform), for its dashboard page: read apart from the
 * install's row, which the REST keyed read shares (core/subscriptions/subscription-store.ts).
 */
export async function installPlatform(db: Queryable, appId: string, id: string): Promise<InstallPlatform | undefined> {
  const res = await db.query<{ platform: InstallPlatform }>('SELECT platform FROM subscriptions WHERE app_id = $1 AND id = $2::uuid', [appId, id]);
  return res.rows[0]?.platform;
}
