// A destination's health, in one place for every reader (the App condition, the sender's metrics,
// the dashboard, `herald events replay`): docs/events.md "When a destination keeps failing".
//
//   delivering  its last attempt was accepted (or it has not failed since)
//   retrying    its current batch has failed, for less than FAILING_AFTER_MS
//   failing     its current batch has failed for FAILING_AFTER_MS or longer
//
// `failing_since` is when the current run of failures began (the dispatcher sets it on the first
// failed attempt and clears it with the first accepted batch); the state is derived from it and
// PostgreSQL's clock, so no process has to notice the moment a destination turns failing.
import type { Queryable } from '../store/db.js';

/** Five minutes of failed attempts (about 9 with the back-off: 1 s doubling) make a destination failing. */
export const FAILING_AFTER_MS = 5 * 60_000;

export type DestinationState = 'delivering' | 'retrying' | 'failing';
export const DESTINATION_STATES: readonly DestinationState[] = ['delivering', 'retrying', 'failing'];

/** The state as SQL, over an `event_destinations` row aliased `d` (the threshold is $-free: a constant). */
export const STATE_SQL = `CASE WHEN d.failing_since IS NULL THEN 'delivering'
  WHEN d.failing_since <= clock_timestamp() - interval '${FAILING_AFTER_MS / 1000} seconds' THEN 'failing' ELSE 'retrying' END`;

/** Records counted at most when measuring a backlog: the count stays an index probe of bounded size. */
export const BACKLOG_COUNT_CAP = 100_000;

export interface DestinationHealth {
  appId: string;
  /** The app's name (`<namespace>/<name>` for an App resource). */
  appName: string;
  name: string;
  state: DestinationState;
  attempts: number;
  lastError: string | null;
  failingSince: Date | null;
  retryAt: Date | null;
  /** Records after its place (at most BACKLOG_COUNT_CAP: "100,000 or more"). */
  backlogRecords: number;
  /** Events retention took before this destination had them (docs/events.md "Retention"). */
  droppedEvents: number;
  droppedRecords: number;
  lastDroppedAt: Date | null;
}

const SELECT = `SELECT d.app_id AS "appId", (SELECT a.name FROM apps a WHERE a.id = d.app_id) AS "appName", d.name, ${STATE_SQL} AS state, d.attempts, d.last_error AS "lastError",
    d.failing_since AS "failingSince", d.retry_at AS "retryAt",
    (SELECT count(*)::int FROM (SELECT 1 FROM event_records r WHERE r.app_id = d.app_id AND r.id > d.delivered_through LIMIT ${BACKLOG_COUNT_CAP}) b) AS "backlogRecords",
    d.dropped_events::float8 AS "droppedEvents", d.dropped_records::float8 AS "droppedRecords", d.last_dropped_at AS "lastDroppedAt"
  FROM event_destinations d`;

/** The health of one app's destinations, by name. */
export async function appDestinationHealth(db: Queryable, appId: string): Promise<DestinationHealth[]> {
  return (await db.query<DestinationHealth>(`${SELECT} WHERE d.app_id = $1 ORDER BY d.name`, [appId])).rows;
}

/**
 * Every destination's health for the metrics, at most `limit` of them (failing first, then
 * retrying, then the largest backlogs): the label sets stay bounded however many apps there are.
 */
export async function destinationHealthForMetrics(db: Queryable, limit: number): Promise<DestinationHealth[]> {
  return (await db.query<DestinationHealth>(
    `SELECT * FROM (${SELECT}) h ORDER BY CASE h.state WHEN 'failing' THEN 0 WHEN 'retrying' THEN 1 ELSE 2 END, h."backlogRecords" DESC, h."appId", h.name LIMIT $1`,
    [limit],
  )).rows;
}

/** The apps' destination states in one short line each (the controller's watch compares them). */
export async function destinationStatesByApp(db: Queryable): Promise<Map<string, string>> {
  const res = await db.query<{ app_id: string; states: string }>(
    `SELECT d.app_id, string_agg(d.name || '=' || ${STATE_SQL} || ':' || d.dropped_records, ',' ORDER BY d.name) AS states FROM event_destinations d GROUP BY d.app_id`,
  );
  return new Map(res.rows.map((r) => [r.app_id, r.states]));
}
