// Why devices failed (issue 40 point 1: "the failure reasons of the last 7 days"). A send's
// reasons are in its chunk rows (failed_reasons, migration 050), up to 2,000 rows for a broadcast
// and pruned 30 days after it ends; counting them for every page would read an app's every chunk
// of the week. So when a send that failed some devices finishes, the scheduler's leader counts its
// reasons once into send_failure_reasons (migration 076), kept with the send; the page sums a row
// per such send. A send still running shows its reasons when it finishes.
import type { Pool, Queryable } from '../store/db.js';

/** The failed devices of a send whose chunk rows name no reason (recorded before migration 050, or pruned). */
export const UNRECORDED = 'not recorded';
const DUTY = 'failure_reasons';
/** Sends finished this long before the duty's mark are looked at again: a transaction that set finished_at may commit a little later. */
const LATE_COMMIT_MS = 10 * 60_000;
/** The first run reaches back as far as the overview shows. */
const FIRST_RUN_DAYS = 31;
const BATCH = 200;

/** The duty: counts the reasons of sends finished since its mark, until `stop`. Returns how many sends it counted. */
export async function rollupFailureReasons(pool: Pool, opts: { now: () => Date; stop: () => boolean }): Promise<number> {
  const mark = (await pool.query<{ through: Date }>('SELECT through FROM overview_marks WHERE duty = $1', [DUTY])).rows[0]?.through;
  const from = mark ? new Date(mark.getTime() - LATE_COMMIT_MS) : new Date(opts.now().getTime() - FIRST_RUN_DAYS * 86_400_000);
  let counted = 0;
  for (;;) {
    if (opts.stop()) return counted;
    const now = opts.now();
    // The sends_finished index's range; each send counted in one statement, in finish order.
    const res = await pool.query<{ id: string; finished_at: Date }>(
      `WITH due AS (
         SELECT s.id, s.app_id, coalesce(s.send_after, s.created_at) AS started_at, s.failed, s.finished_at FROM sends s
          WHERE s.finished_at IS NOT NULL AND s.finished_at >= $1 AND s.finished_at <= $2 AND s.failed > 0
            AND NOT EXISTS (SELECT 1 FROM send_failure_reasons r WHERE r.send_id = s.id)
          ORDER BY s.finished_at LIMIT ${BATCH}
       ), named AS (
         SELECT d.id, f.reason, count(*) AS n FROM due d JOIN send_chunks c ON c.send_id = d.id
           CROSS JOIN LATERAL unnest(c.failed_reasons) AS f(reason) GROUP BY d.id, f.reason
       ), ins AS (
         INSERT INTO send_failure_reasons (send_id, app_id, started_at, reasons)
         SELECT d.id, d.app_id, d.started_at,
                coalesce((SELECT jsonb_object_agg(n.reason, n.n) FROM named n WHERE n.id = d.id), '{}'::jsonb)
                  || CASE WHEN d.failed > coalesce((SELECT sum(n.n) FROM named n WHERE n.id = d.id), 0)
                          THEN jsonb_build_object($3::text, d.failed - coalesce((SELECT sum(n.n) FROM named n WHERE n.id = d.id), 0)) ELSE '{}'::jsonb END
           FROM due d ON CONFLICT (send_id) DO NOTHING
       )
       SELECT id::text, finished_at FROM due ORDER BY finished_at`,
      [from, now, UNRECORDED],
    );
    counted += res.rows.length;
    const through = res.rows.length === BATCH ? res.rows.at(-1)!.finished_at : now;
    await pool.query(
      `INSERT INTO overview_marks (duty, through) VALUES ($1, $2) ON CONFLICT (duty) DO UPDATE SET through = greatest(overview_marks.through, excluded.through)`,
      [DUTY, through],
    );
    if (res.rows.length < BATCH) return counted;
  }
}

export interface FailureReason {
  reason: string;
  devices: number;
}

/** The reasons of the app's sends started since `since`, the most frequent first. */
export async function failureReasons(db: Queryable, appId: string, since: Date): Promise<FailureReason[]> {
  const res = await db.query<{ reason: string; devices: string }>(
    `SELECT r.key AS reason, sum(r.value::bigint) AS devices
       FROM send_failure_reasons f CROSS JOIN LATERAL jsonb_each_text(f.reasons) r
      WHERE f.app_id = $1 AND f.started_at >= $2
      GROUP BY r.key ORDER BY 2 DESC, 1`,
    [appId, since],
  );
  return res.rows.map((r) => ({ reason: r.reason, devices: Number(r.devices) }));
}
