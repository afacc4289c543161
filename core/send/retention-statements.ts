// The statements of the retention of finished sends (core/send/retention.ts), each touching a
// bounded number of rows: a send's dependent rows (its chunk rows, its opens) are deleted in
// batches of ROWS_PER_STATEMENT before the send itself, so no statement, and no transaction,
// grows with the size of a broadcast (1,000,000 devices: 2,000 chunk rows and every open).
import type { Pool } from '../store/db.js';

/** Chunk or open rows a statement deletes at most. */
export const ROWS_PER_STATEMENT = 5_000;
/**
 * Sends a statement picks, marks or deletes at most. A send's delete takes at most one more row
 * with it (its idempotency record, if still within its 24 hours), and an open reported between
 * its opens' batches and the delete: so ~2,000 rows at most.
 */
export const SENDS_PER_STATEMENT = 1_000;

/** The tables whose rows reference a send and are deleted before it (sends(id) ON DELETE CASCADE). */
export type SendChildTable = 'send_chunks' | 'opens';

/**
 * The oldest sends finished more than `days` days ago (those whose chunk rows are still there, with
 * `chunksLeft`), at most SENDS_PER_STATEMENT. Each condition is its partial index's predicate
 * (migration 021), so this reads only sends due.
 */
export async function dueSends(pool: Pool, days: number, opts: { chunksLeft: boolean }): Promise<string[]> {
  const res = await pool.query<{ id: string }>(
    `SELECT id FROM sends
      WHERE finished_at IS NOT NULL ${opts.chunksLeft ? 'AND chunks_pruned_at IS NULL' : ''}
        AND finished_at < now() - make_interval(days => $1)
      ORDER BY finished_at LIMIT $2`,
    [days, SENDS_PER_STATEMENT],
  );
  return res.rows.map((r) => r.id);
}

/**
 * Deletes the `table` rows of these sends, ROWS_PER_STATEMENT a statement, while `more()` allows.
 * `done` is false when it stopped with rows left. One index scan per send (the LATERAL over the
 * primary key, which starts with send_id), stopped by the LIMIT: a broadcast's million opens are
 * never all read by one statement.
 */
export async function deleteRowsOf(pool: Pool, table: SendChildTable, ids: string[], more: () => boolean): Promise<{ rows: number; done: boolean }> {
  let rows = 0;
  for (;;) {
    const res = await pool.query(
      `DELETE FROM ${table} WHERE ctid = ANY (ARRAY(
         SELECT r.ctid FROM unnest($1::bigint[]) AS s(id)
          CROSS JOIN LATERAL (SELECT ctid FROM ${table} WHERE send_id = s.id LIMIT $2) AS r
          LIMIT $2))`,
      [ids, ROWS_PER_STATEMENT],
    );
    const n = res.rowCount ?? 0;
    rows += n;
    if (n < ROWS_PER_STATEMENT) return { rows, done: true };
    if (!more()) return { rows, done: false };
  }
}

/** Marks sends whose chunk rows are gone, which takes them out of the index of sends to prune. */
export async function markChunksPruned(pool: Pool, ids: string[]): Promise<void> {
  await pool.query('UPDATE sends SET chunks_pruned_at = now() WHERE id = ANY ($1::bigint[]) AND chunks_pruned_at IS NULL', [ids]);
}

/**
 * Deletes these sends once their chunk rows and opens are gone: ON DELETE CASCADE then takes only
 * an idempotency record (indexed by migration 023) and an open reported since.
 */
export async function deleteSends(pool: Pool, ids: string[], days: number): Promise<number> {
  const res = await pool.query(
    `DELETE FROM sends WHERE id = ANY ($1::bigint[])
        AND finished_at IS NOT NULL AND finished_at < now() - make_interval(days => $2)`,
    [ids, days],
  );
  return res.rowCount ?? 0;
}

/**
 * Event records (core/events, docs/events.md "Retention") a statement deletes at most: a chunk
 * record holds up to 1,000 events (~20 kB), so fewer than the rows above.
 */
export const EVENT_RECORDS_PER_STATEMENT = 1_000;

/**
 * The events a record held, in SQL over a row `g` (what a destination loses when retention takes
 * it): a chunk record one per install sent or failed and two per refusal, a record of device events
 * one per entry, a send's life step one. A malformed body counts what it can (the dispatcher
 * passes such records over: core/events/batch.ts isExpandable).
 */
const EVENTS_OF = (g: string) => {
  const n = (field: string) => `CASE jsonb_typeof(${g}.body->'${field}') WHEN 'array' THEN jsonb_array_length(${g}.body->'${field}') ELSE 0 END`;
  return `CASE ${g}.kind WHEN 'chunk' THEN ${n('s')} + ${n('f')} + 2 * ${n('u')} WHEN 'device_events' THEN ${n('d')} ELSE 1 END`;
};

/**
 * Deletes at most EVENT_RECORDS_PER_STATEMENT event records that no destination needs: every
 * record of an app with no destination; an app's records up to the least place its destinations
 * have reached once they are `keepDeliveredDays` old (kept that long for `herald events replay`;
 * 0: at once); and records older than `capDays` days (0: no cap) even if undelivered. Per app it
 * reads the oldest records by (app_id, id) only, and only for an app whose oldest record is due,
 * so a young backlog costs one index probe.
 *
 * An undelivered record taken by the age cap is never dropped silently: in the same statement,
 * each destination it was behind counts it (dropped_records, dropped_events less the events of
 * it the destination had already taken, last_dropped_at), which the App condition, the metrics
 * and the dashboard show (docs/events.md "Retention").
 */
export async function deleteEventRecords(pool: Pool, capDays: number, keepDeliveredDays: number): Promise<number> {
  const due = (r: string) =>
    `(u.n = 0 OR (${r}.id <= u.upto AND ${r}.recorded_at < now() - make_interval(days => $3::int)) OR ($2::int > 0 AND ${r}.recorded_at < now() - make_interval(days => $2::int)))`;
  const res = await pool.query<{ n: number }>(
    `WITH gone AS (
       DELETE FROM event_records WHERE ctid = ANY (ARRAY(
         SELECT r.ctid FROM apps a
          CROSS JOIN LATERAL (SELECT min(d.delivered_through) AS upto, count(*) AS n FROM event_destinations d WHERE d.app_id = a.id) u
          CROSS JOIN LATERAL (SELECT f.id, f.recorded_at FROM event_records f WHERE f.app_id = a.id ORDER BY f.id LIMIT 1) f
          CROSS JOIN LATERAL (SELECT r.ctid, r.id, r.recorded_at FROM event_records r WHERE r.app_id = a.id ORDER BY r.id LIMIT $1) r
          WHERE ${due('f')} AND ${due('r')}
          LIMIT $1))
       RETURNING app_id, id, kind, body),
     lost AS (
       SELECT d.app_id, d.name, count(*) AS records,
              sum(CASE WHEN g.id = d.delivered_through + 1 THEN greatest(${EVENTS_OF('g')} - d.delivered_offset, 0) ELSE ${EVENTS_OF('g')} END) AS events
         FROM gone g JOIN event_destinations d ON d.app_id = g.app_id AND g.id > d.delivered_through
        GROUP BY d.app_id, d.name),
     counted AS (
       UPDATE event_destinations d SET dropped_records = d.dropped_records + l.records, dropped_events = d.dropped_events + l.events, last_dropped_at = now()
         FROM lost l WHERE d.app_id = l.app_id AND d.name = l.name RETURNING 1)
     SELECT (SELECT count(*) FROM gone)::int AS n`,
    [EVENT_RECORDS_PER_STATEMENT, capDays, keepDeliveredDays],
  );
  return res.rows[0].n;
}
