// A dispatcher lane's hold on one destination, or on one running replay (core/events/dispatcher.ts):
// claimed with a lease (`FOR UPDATE SKIP LOCKED`, least recently served first) and released by one
// conditional write. Every write is conditional on the lease the lane took: a lane whose lease ran
// out (a stall longer than a minute) finds its destination taken and writes nothing.
import type { Pool } from '../store/db.js';
import type { Place } from './batch.js';
import type { EventKind } from './kinds.js';

/** A lane's hold on a destination: past one request's deadline, so a dead process's lane frees itself. */
export const LEASE_MS = 60_000;

export interface Claimed {
  app_id: string;
  name: string;
  url: string;
  kinds: EventKind[] | null;
  secret: Buffer;
  delivered_through: string;
  delivered_offset: number;
  attempts: number;
  failing_since: Date | null;
  /** The lease's end as PostgreSQL wrote it (text: a Date would lose its microseconds): the lane's token. */
  lease: string;
  /** A replay of the destination (core/events/replay.ts): its row, and the range's last record. */
  replay_id?: string;
  replay_last?: string;
}

/** The destination with records past its place, served least recently, not backing off. */
export async function claimDestination(pool: Pool): Promise<Claimed | undefined> {
  const res = await pool.query<Claimed>(
    `UPDATE event_destinations d SET lease_until = clock_timestamp() + make_interval(secs => $1::double precision / 1000)
       FROM (SELECT c.app_id, c.name FROM event_destinations c
              WHERE (c.lease_until IS NULL OR c.lease_until < clock_timestamp()) AND (c.retry_at IS NULL OR c.retry_at <= clock_timestamp())
                AND EXISTS (SELECT 1 FROM event_records r WHERE r.app_id = c.app_id AND r.id > c.delivered_through)
              ORDER BY c.lease_until NULLS FIRST LIMIT 1 FOR UPDATE SKIP LOCKED) pick
      WHERE d.app_id = pick.app_id AND d.name = pick.name
    RETURNING d.app_id, d.name, d.url, d.kinds, d.secret, d.delivered_through::text, d.delivered_offset, d.attempts, d.failing_since, d.lease_until::text AS lease`,
    [LEASE_MS],
  );
  return res.rows[0];
}

/** A running replay (`herald events replay`): served like a destination, its own place in its range. */
export async function claimReplay(pool: Pool): Promise<Claimed | undefined> {
  const res = await pool.query<Claimed>(
    `UPDATE event_replays p SET lease_until = clock_timestamp() + make_interval(secs => $1::double precision / 1000)
       FROM (SELECT c.id FROM event_replays c
              WHERE c.finished_at IS NULL AND (c.lease_until IS NULL OR c.lease_until < clock_timestamp()) AND (c.retry_at IS NULL OR c.retry_at <= clock_timestamp())
              ORDER BY c.lease_until NULLS FIRST LIMIT 1 FOR UPDATE OF c SKIP LOCKED) pick, event_destinations d
      WHERE p.id = pick.id AND d.app_id = p.app_id AND d.name = p.destination
    RETURNING p.app_id, d.name, d.url, d.kinds, d.secret, p.delivered_through::text, p.delivered_offset, p.attempts, p.failing_since, p.lease_until::text AS lease,
              p.id::text AS replay_id, p.last_id::text AS replay_last`,
    [LEASE_MS],
  );
  return res.rows[0];
}

/** Ends the lane's hold, writing `set` (its parameters from $4: `values`) if the lease is still its own. */
export function release(pool: Pool, d: Claimed, set: string, values: unknown[]) {
  return d.replay_id
    ? pool.query(`UPDATE event_replays SET ${set}, lease_until = clock_timestamp() WHERE id = $1 AND destination = $2 AND lease_until = $3::timestamptz`, [d.replay_id, d.name, d.lease, ...values])
    : pool.query(`UPDATE event_destinations SET ${set}, lease_until = clock_timestamp() WHERE app_id = $1 AND name = $2 AND lease_until = $3::timestamptz`, [d.app_id, d.name, d.lease, ...values]);
}

/** The write that moves the place to `p` and clears the failure (a replay also counts what it delivered and finishes at its range's end). */
export function moveTo(d: Claimed, p: Place, delivered = 0): [string, unknown[]] {
  return d.replay_id
    ? ['delivered_through = $4, delivered_offset = $5, attempts = 0, retry_at = NULL, last_error = NULL, failing_since = NULL, events_delivered = events_delivered + $6, finished_at = CASE WHEN $4::bigint >= last_id THEN clock_timestamp() END', [p.through, p.offset, delivered]]
    : ['delivered_through = $4, delivered_offset = $5, attempts = 0, retry_at = NULL, last_error = NULL, failing_since = NULL', [p.through, p.offset]];
}
