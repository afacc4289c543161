// The transaction of a user call. User calls and the app's registrations take their locks in one
// order (docs/decisions.md "Issue 27: lock order"): alias names (advisory, sorted), then user rows,
// then install rows. A call that learns, once it holds its install, that the install changed user
// since it planned its locks throws StalePlan and runs again with the new plan. A deadlock
// (SQLSTATE 40P01) is no longer expected between these calls; PostgreSQL can still end one that
// waits in a circle with something else (two opposite moves of installs), and that call runs
// again too. Up to ATTEMPTS runs, then the error stands (a 500).
import { inTransaction, type Pool, type PoolClient } from '../store/db.js';

const DEADLOCK = '40P01';
const ATTEMPTS = 5;

/** The install's user changed between the unlocked read that chose the locks and the lock itself. */
export class StalePlan extends Error {
  override name = 'StalePlan';
}

/** Runs again so far in this process, by cause (read by tests to prove the lock order holds). */
const reruns = { deadlock: 0, stale: 0 };
export function userReruns(): Readonly<typeof reruns> {
  return { ...reruns };
}

export async function inUserTransaction<T>(pool: Pool, work: (db: PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTransaction(pool, work);
    } catch (error) {
      const cause = error instanceof StalePlan ? 'stale' : (error as { code?: unknown }).code === DEADLOCK ? 'deadlock' : undefined;
      if (attempt >= ATTEMPTS || cause === undefined) throw error;
      reruns[cause]++;
    }
  }
}
