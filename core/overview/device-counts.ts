// Devices by state per app (issue 40 point 1: "reachable devices now and over the last 30 days"),
// counted by the scheduler's leader beside retention and kept one row per app, UTC day and
// platform (migration 076), so the overview reads at most 31 rows where a count of a 10,000,000-
// install app takes seconds. An app is counted again once its count is COUNT_EVERY_MS old; the
// page says when its figures were counted. Unsubscribed installs are told apart by who said so:
// the app's SDK (reason 'app'), the gateway (Apple's or Google's reason) or no reason recorded.
// Each platform (subscriptions.platform, migration 071) has its row.
import type { Pool, Queryable } from '../store/db.js';

/** How old a count may get before the duty counts the app again. */
export const COUNT_EVERY_MS = 10 * 60_000;
/** Days of counts kept (the overview shows 30). */
export const COUNTS_KEPT_DAYS = 90;
/** The platforms of an install (migration 071), in the order the dashboard shows them. */
export const PLATFORMS = ['ios', 'android'] as const;
export type Platform = (typeof PLATFORMS)[number];

export interface DeviceCount {
  subscribed: number;
  unsubscribedApp: number;
  unsubscribedGateway: number;
  unsubscribedUnknown: number;
}

/** Counts the app's installs now and keeps them as today's row of each platform (both, zeros included). */
export async function countAppDevices(db: Queryable, appId: string, now: Date): Promise<void> {
  // One statement, one snapshot, each part index-only: all installs from the audience index, the
  // unsubscribed from their partial index (subscriptions_unsubscribed), the Android ones from
  // theirs (subscriptions_android, migration 074); iOS is what is not Android, the subscribed
  // what is not unsubscribed. A row per platform every time, so a platform that lost its last
  // install reads 0 today rather than keeping an earlier count.
  await db.query(
    `WITH total AS (SELECT count(*) AS n FROM subscriptions WHERE app_id = $1),
     un AS (
       SELECT count(*) AS n, count(*) FILTER (WHERE unsubscribed_reason = 'app') AS by_app,
              count(*) FILTER (WHERE unsubscribed_reason <> 'app') AS by_gateway,
              count(*) FILTER (WHERE unsubscribed_reason IS NULL) AS unknown
         FROM subscriptions WHERE app_id = $1 AND NOT subscribed
     ), android AS (
       SELECT count(*) AS n, count(*) FILTER (WHERE NOT subscribed) AS un,
              count(*) FILTER (WHERE NOT subscribed AND unsubscribed_reason = 'app') AS by_app,
              count(*) FILTER (WHERE NOT subscribed AND unsubscribed_reason <> 'app') AS by_gateway,
              count(*) FILTER (WHERE NOT subscribed AND unsubscribed_reason IS NULL) AS unknown
         FROM subscriptions WHERE app_id = $1 AND platform = 'android'
     ), platforms (platform, subscribed, by_app, by_gateway, unknown) AS (
       SELECT 'ios', (total.n - un.n) - (android.n - android.un), un.by_app - android.by_app, un.by_gateway - android.by_gateway, un.unknown - android.unknown
         FROM total, un, android
       UNION ALL
       SELECT 'android', android.n - android.un, android.by_app, android.by_gateway, android.unknown FROM android
     )
     INSERT INTO app_device_counts (app_id, day, platform, subscribed, unsubscribed_app, unsubscribed_gateway, unsubscribed_unknown, counted_at)
     SELECT $1, ($2::timestamptz AT TIME ZONE 'UTC')::date, platform, subscribed, by_app, by_gateway, unknown, $2 FROM platforms
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
  /** The same figures for each platform; the day's own are their sums. */
  platforms: Record<Platform, DeviceCount>;
}

const zero = (): DeviceCount => ({ subscribed: 0, unsubscribedApp: 0, unsubscribedGateway: 0, unsubscribedUnknown: 0 });
const KEYS = ['subscribed', 'unsubscribedApp', 'unsubscribedGateway', 'unsubscribedUnknown'] as const;

/** The app's counts of the last `days` days (all platforms together, and each), oldest first, and when the latest was counted. */
export async function deviceCounts(db: Queryable, appId: string, days: number, now: Date): Promise<{ days: DeviceDay[]; countedAt?: Date }> {
  const res = await db.query<{ day: string; platform: string; subscribed: string; app: string; gateway: string; unknown: string; counted_at: Date }>(
    `SELECT day::text, platform, subscribed, unsubscribed_app AS app, unsubscribed_gateway AS gateway, unsubscribed_unknown AS unknown, counted_at
       FROM app_device_counts WHERE app_id = $1 AND day > ($2::timestamptz AT TIME ZONE 'UTC')::date - $3::int
      ORDER BY day, platform`,
    [appId, now, days],
  );
  // At most a row per platform and day: 62 rows for the overview's 30 days.
  const byDay = new Map<string, DeviceDay>();
  let countedAt: Date | undefined; // the latest day's last count
  for (const r of res.rows) {
    let d = byDay.get(r.day);
    if (!d) byDay.set(r.day, (d = { day: r.day, ...zero(), platforms: { ios: zero(), android: zero() } }));
    const figures: DeviceCount = { subscribed: Number(r.subscribed), unsubscribedApp: Number(r.app), unsubscribedGateway: Number(r.gateway), unsubscribedUnknown: Number(r.unknown) };
    const platform = d.platforms[r.platform as Platform];
    for (const k of KEYS) {
      d[k] += figures[k];
      if (platform) platform[k] += figures[k];
    }
    if (r.day !== res.rows.at(-1)!.day) continue;
    if (!countedAt || r.counted_at > countedAt) countedAt = r.counted_at;
  }
  return { days: [...byDay.values()], countedAt };
}
