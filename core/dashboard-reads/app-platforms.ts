// Whether an App has Android installs, for a send's report (issue 39 point 8): its per-platform
// table shows Android's row when the send counted Android devices or the App has any. One probe of
// the partial index subscriptions_android (migration 074): an iOS-only App has no entry in it, so
// the answer costs the same for 10 installs or 10,000,000.
import type { Queryable } from '../store/db.js';

/** The query ($1 the App's id), exported so a test can read its plan. */
export const ANDROID_INSTALLS_SQL = `SELECT EXISTS (SELECT 1 FROM subscriptions WHERE app_id = $1 AND platform = 'android') AS any`;

export async function appHasAndroidInstalls(db: Queryable, appId: string): Promise<boolean> {
  return (await db.query<{ any: boolean }>(ANDROID_INSTALLS_SQL, [appId])).rows[0].any;
}
