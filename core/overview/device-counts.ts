// Devices by state per app (issue 40 point 1: "reachable devices now and over the last 30 days"),
// counted by the scheduler's leader beside retention and kept one row per app, UTC day and
// platform (migration 076), so the overview reads at most 31 rows where a count of a 10,000,000-
// install app takes seconds. An app is counted again once its count is COUNT_EVERY_MS old; the
// page says when its figures were counted. Unsubscribed installs are told apart by who said so:
// the app's SDK (reason 'app'), the gateway (Apple's reason) or no reason recorded.
import type { Pool, Queryable } from '../store/db.js';

/** How old a count may get before the duty counts the app again. */
export const COUNT_EVERY_MS = 10 * 60_000;
/** Days of counts kept (the overview shows 30). */
export const COUNTS_KEPT_DAYS = 90;
/**
 * The platform of an install. iOS only today; when Android lands it is the install's platform
 * column, and every count below is already grouped by it (one row per platform and day).
 */
export const PLATFORM_SQL = `'ios'`;

export interface DeviceCount {
  subscribed: number;
  unsubscribedApp: number;
  unsubscribedGateway: number;
  unsubscribedUnknown: number;
}

/** Counts the app's installs now and keeps them as today's row of each platform. */
export async function countAppDevices(db: Queryable, appId: string, now: Date): Promise<void> {
  // One statement, one snapshot: the unsubscribed from their partial index (subscriptions_unsubscribed),
  // all installs from the audience index, both index-only; the subscribed are the difference.
  await db.query(
    `WITH un AS (
       SELECT ${PLATFORM_SQL} AS platform, count(*) AS n,
              count(*) FILTER (WHERE unsubscribed_reason = 'app') AS by_app,
              count(*) FILTER (WHERE unsubscribed_reason <> 'app') AS by_gateway,
              count(*) FILTER (WHERE unsubscribed_reason IS NULL) AS unknown
         FROM subscriptions WHERE app_id = $1 AND NOT subscribed GROUP BY 1
     ), total AS (
       SELECT ${PLATFORM_SQL} AS platform, count(*) AS n FROM subscriptions WHERE app_id = $1 GROUP BY 1
     )
     INSERT INTO app_device_counts (app_id, day, platform, subscribed, unsubscribed_app, unsubscribed_gateway, unsubscribed_unknown, counted_at)
     SELECT $1, ($2::timestamptz AT TIME ZONE 'UTC')::date, coalesce(total.platform, un.platform), coalesce(total.n, 0) - coalesce(un.n, 0),
            coalesce(un.by_app, 0), coalesce(un.by_gateway, 0), coalesce(un.unknown, 0), $2
       FROM total FULL JOIN un ON un.platform = total.platform
     UNION ALL
     -- An app with no install yet has a row of zeros: counted, and nothing to count.
     SELECT $1, ($2::timestamptz AT TIME ZONE 'UTC')::date, ${PLATFORM_SQL}, 0, 0, 0, 0, $2 WHERE NOT EXISTS (SELECT 1 FROM total)
     ON CONFLICT (app_id, day, platform) DO UPDATE SET subscribed = excluded.subscribed, unsubscribed_app = excluded.unsubscribed_app,
       unsubscribed_gateway = excluded.unsubscribed_gateway, unsubscribed_unknown = excluded.unsubscribed_unknown, counted_at = excluded.counted_at`,
    [appId, now],
  );
}

/**
 * The duty: counts every app whose count is missing or COUNT_EVERY_MS old, the oldest first, until
 * `stop` says so (the retention round's budget); and drops counts older than COUNTS_KEPT_DAYS.
 * Returns how many apps it counted.
 */
export async function countDueApps(pool: Pool, opts: { now: () => Date; stop: () => boolean }): Promise<number> {
  await pool.query(`DELETE FROM app_device_counts WHERE day < ($1::timestamptz AT TIME ZONE 'UTC')::date - $2::int`, [opts.now(), COUNTS_KEPT_DAYS]);
  const due = await pool.query<{ id: string }>(
    `SELECT a.id FROM apps a
       LEFT JOIN LATERAL (SELECT max(counted_at) AS at FROM app_device_counts c WHERE c.app_id = a.id AND c.day = ($1::timestamptz AT TIME ZONE 'UTC')::date) c ON true
      WHERE NOT a.disabled AND (c.at IS NULL OR c.at < $1::timestamptz - make_interval(secs => $2))
      ORDER BY c.at NULLS FIRST, a.id`,
    [opts.now(), COUNT_EVERY_MS / 1000],
  );
  let counted = 0;
  for (const { id } of due.rows) {
    if (opts.stop()) break;
    await countAppDevices(pool, id, opts.now());
    counted++;
  }
  return counted;
}

export interface DeviceDay extends DeviceCount {
  day: string;
}

/** The app's counts of the last `days` days (all platforms together), oldest first, and when the latest was counted. */
export async function deviceCounts(db: Queryable, appId: string, days: number, now: Date): Promise<{ days: DeviceDay[]; countedAt?: Date }> {
  const res = await db.query<{ day: string; subscribed: string; app: string; gateway: string; unknown: string; counted_at: Date }>(
    `SELECT day::text, sum(subscribed) AS subscribed, sum(unsubscribed_app) AS app, sum(unsubscribed_gateway) AS gateway,
            sum(unsubscribed_unknown) AS unknown, max(counted_at) AS counted_at
       FROM app_device_counts WHERE app_id = $1 AND day > ($2::timestamptz AT TIME ZONE 'UTC')::date - $3::int
      GROUP BY day ORDER BY day`,
    [appId, now, days],
  );
  return {
    days: res.rows.map((r) => ({ day: r.day, subscribed: Number(r.subscribed), unsubscribedApp: Number(r.app), unsubscribedGateway: Number(r.gateway), unsubscribedUnknown: Number(r.unknown) })),
    countedAt: res.rows.at(-1)?.counted_at,
  };
}
