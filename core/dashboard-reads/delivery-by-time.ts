// The overview's delivery figures (issue 40 point 1): sends, devices sent, failed and opened per
// hour or day of a range, read live from the sends' own counters (the REST stats' numbers). A
// send's figures count in the bucket it started in (its send_after, else its creation: the list's
// time), so a day's open rate is that day's sends' opens of their sent devices. The range is an
// index range of `sends_app_time_offset` (migration 051): an app's 10,000 sends of 30 days are
// 10,000 rows, never a chunk or an open (docs/benchmarks.md "Overview").
import type { Queryable } from '../store/db.js';
import { LISTED_KINDS_SQL } from '../send/report.js';
import { bucketsOf, fill, RANGES, type RangeName } from './overview-range.js';

export interface DeliveryBucket {
  at: Date;
  sends: number;
  sent: number;
  failed: number;
  opened: number;
}

/** Every bucket of the range ending `now`, oldest first. */
export async function deliveryByTime(db: Queryable, appId: string, range: RangeName, now: Date): Promise<DeliveryBucket[]> {
  const starts = bucketsOf(range, now);
  const res = await db.query<{ at: Date; sends: number; sent: string; failed: string; opened: string }>(
    `SELECT date_trunc($4, coalesce(send_after, created_at), 'UTC') AS at, count(*)::int AS sends,
            sum(sent) AS sent, sum(failed) AS failed, sum(clicked) AS opened
       FROM sends
      WHERE app_id = $1 AND coalesce(send_after, created_at) >= $2 AND coalesce(send_after, created_at) <= $3 AND ${LISTED_KINDS_SQL}
      GROUP BY 1`,
    [appId, starts[0], now, RANGES[range].unit],
  );
  const rows = res.rows.map((r) => ({ at: r.at, sends: r.sends, sent: Number(r.sent), failed: Number(r.failed), opened: Number(r.opened) }));
  return fill(starts, rows, { sends: 0, sent: 0, failed: 0, opened: 0 });
}
