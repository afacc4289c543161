// `herald events replay` (docs/events.md "Replay"): an app's recorded events of a time range
// delivered again to its destinations, with the same event ids (receivers deduplicate on them),
// under new webhook-ids (a receiver deduplicating on webhook-id would drop a repeated one). A
// replay is a row of event_replays (migration 044) that the dispatcher's lanes serve like a
// destination, with its own place in the range: the destination's own place never moves.
import type { Pool, Queryable } from '../store/db.js';
import { STATE_SQL } from './health.js';
import { STREAM_DESTINATION } from './stream.js';

/**
 * A request that cannot be served, in words naming the option at fault. `usage`: the arguments
 * themselves are wrong (the command line's exit 2), else the app's state refuses it (exit 1).
 */
export class ReplayError extends Error {
  override name = 'ReplayError';
  constructor(message: string, readonly usage = false) {
    super(message);
  }
}

export interface ReplayRequest {
  appId: string;
  /** Omitted: every destination of the app. */
  destination?: string;
  from: Date;
  to: Date;
  /** How far back records are kept for a replay (core/events/replay-window.ts). */
  windowDays: number;
  now?: Date;
}

export interface Replay {
  id: string;
  destination: string;
  fromTime: Date;
  toTime: Date;
  records: number;
  recordsDone: number;
  eventsDelivered: number;
  /** done, or the destination states (core/events/health.ts): delivering, retrying, failing. */
  state: 'done' | 'delivering' | 'retrying' | 'failing';
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

/** Finished replays kept per app (the running ones are at most one per destination). */
export const REPLAYS_KEPT = 20;
/** A --to this far past the clock is a clock's difference, not the future. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** Checks the request and starts one replay per destination (all or none). */
export async function startReplays(pool: Pool, req: ReplayRequest): Promise<Replay[]> {
  const now = req.now ?? new Date();
  const iso = (d: Date) => d.toISOString();
  if (req.from > req.to) throw new ReplayError(`--from ${iso(req.from)} is after --to ${iso(req.to)}`, true);
  if (req.to.getTime() > now.getTime() + CLOCK_SKEW_MS) throw new ReplayError(`--to ${iso(req.to)} is in the future: a replay delivers events already recorded`, true);
  const oldest = new Date(now.getTime() - req.windowDays * 86_400_000);
  if (req.from < oldest) {
    throw new ReplayError(`--from ${iso(req.from)} is more than ${req.windowDays} days ago: events are kept ${req.windowDays} days for a replay (docs/events.md "Replay"); the oldest --from is ${iso(oldest)}`, true);
  }
  // Webhook destinations only: the NATS stream keeps its own history (a consumer replays it from a
  // start time), and JetStream would drop a republished event id inside its duplicate window anyway.
  const names = (await pool.query<{ name: string }>('SELECT name FROM event_destinations WHERE app_id = $1 AND name <> $2 ORDER BY name', [req.appId, STREAM_DESTINATION])).rows.map((r) => r.name);
  if (!names.length) throw new ReplayError('the app has no event destination (spec.events.destinations of its App)');
  if (req.destination !== undefined && !names.includes(req.destination)) {
    throw new ReplayError(`--destination: the app has no destination named ${req.destination}; its destinations: ${names.join(', ')}`);
  }
  const range = (await pool.query<{ first: string | null; last: string | null; n: number }>(
    `SELECT min(id)::text AS first, max(id)::text AS last, count(*)::int AS n FROM event_records WHERE app_id = $1 AND recorded_at >= $2 AND recorded_at <= $3`,
    [req.appId, req.from, req.to],
  )).rows[0];
  if (!range.n) throw new ReplayError(`no events were recorded for the app from ${iso(req.from)} to ${iso(req.to)}`);

  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const ids: string[] = [];
    for (const destination of req.destination !== undefined ? [req.destination] : names) {
      const running = (await client.query<{ id: string }>('SELECT id::text FROM event_replays WHERE app_id = $1 AND destination = $2 AND finished_at IS NULL', [req.appId, destination])).rows[0];
      if (running) throw new ReplayError(`destination ${destination} has a replay running (${running.id}): wait for it to finish (herald events replays shows it)`);
      const row = await client.query<{ id: string }>(
        `INSERT INTO event_replays (app_id, destination, from_time, to_time, first_id, last_id, records, delivered_through)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $5::bigint - 1) RETURNING id::text`,
        [req.appId, destination, req.from, req.to, range.first, range.last, range.n],
      );
      ids.push(row.rows[0].id);
    }
    await client.query(
      `DELETE FROM event_replays WHERE app_id = $1 AND finished_at IS NOT NULL
         AND id NOT IN (SELECT id FROM event_replays WHERE app_id = $1 AND finished_at IS NOT NULL ORDER BY id DESC LIMIT $2)`,
      [req.appId, REPLAYS_KEPT],
    );
    await client.query('COMMIT');
    // In the order started (the destinations' names), not replays()'s newest first.
    const started = await replays(pool, req.appId, ids);
    return ids.map((id) => started.find((r) => r.id === id)!);
  } catch (error) {
    await client.query('ROLLBACK');
    // Two replays asked at once: the unique index refuses the second.
    if ((error as { code?: string }).code === '23505') throw new ReplayError('a replay of that destination was started meanwhile: wait for it to finish');
    throw error;
  } finally {
    client.release();
  }
}

/** The app's replays (those named, or every one kept), newest first, with their progress. */
export async function replays(db: Queryable, appId: string, ids?: readonly string[]): Promise<Replay[]> {
  const res = await db.query<Replay>(
    `SELECT d.id::text, d.destination, d.from_time AS "fromTime", d.to_time AS "toTime", d.records,
            (SELECT count(*)::int FROM event_records r WHERE r.app_id = d.app_id AND r.id >= d.first_id AND r.id <= least(d.delivered_through, d.last_id)) AS "recordsDone",
            d.events_delivered::float8 AS "eventsDelivered", CASE WHEN d.finished_at IS NOT NULL THEN 'done' ELSE ${STATE_SQL} END AS state,
            d.attempts, d.last_error AS "lastError", d.created_at AS "createdAt", d.finished_at AS "finishedAt"
       FROM event_replays d WHERE d.app_id = $1 AND ($2::bigint[] IS NULL OR d.id = ANY($2::bigint[])) ORDER BY d.id DESC`,
    [appId, ids ?? null],
  );
  return res.rows;
}
