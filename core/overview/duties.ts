// The overview's duties (issue 40 point 1), run by the scheduler's leader once a minute after
// retention (core/send/scheduler.ts): the failure reasons of sends that finished, then the device
// counts of apps whose count is due. Each stops between statements when the leader stops or its
// budget is spent, and goes on the next minute where it stopped.
import type { Pool } from '../store/db.js';
import { countDueApps } from './device-counts.js';
import { rollupFailureReasons } from './failure-reasons.js';

/** A minute's work at most: a 10,000,000-install app's count is one statement of a few seconds. */
const BUDGET_MS = 20_000;

export async function runOverviewDuties(pool: Pool, opts: { stop: () => boolean; now?: () => Date }): Promise<{ sends: number; apps: number }> {
  const started = Date.now();
  const stop = () => opts.stop() || Date.now() - started > BUDGET_MS;
  const now = opts.now ?? (() => new Date());
  const sends = await rollupFailureReasons(pool, { now, stop });
  const apps = await countDueApps(pool, { now, stop });
  return { sends, apps };
}
