// The audience of a Live Activity's update or end: the installs that registered an update token
// for the activity (live_activity_tokens, kind 'update'), whether or not they take notifications
// (a Live Activity has its own switch in iOS Settings, apart from notifications). Counted at the
// answer, chunked by the planner (the installs of each chunk in `entries`, so a chunk is the same
// on every attempt), loaded by the sender. Every statement reads the table's primary key.
import type { Queryable } from '../store/db.js';
import type { ChunkDevices, Device } from '../delivery/chunks.js';

export async function countActivityTokens(db: Queryable, appId: string, activityId: string): Promise<number> {
  const res = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM live_activity_tokens WHERE app_id = $1 AND kind = 'update' AND activity = $2`,
    [appId, activityId],
  );
  return res.rows[0].n;
}

/**
 * Records the chunks of an activity's send, at most `size` installs each and `cap` in all (the
 * count the answer gave: a send never delivers to more). Returns how many chunks it recorded.
 */
export async function planActivityChunks(db: Queryable, sendId: number, appId: string, activityId: string, cap: number, size: number): Promise<number> {
  if (cap <= 0) return 0;
  const res = await db.query(
    `INSERT INTO send_chunks (send_id, chunk, planned, entries)
     SELECT $1, (n - 1) / $5, count(*), array_agg(id ORDER BY n)
       FROM (SELECT subscription_id::text AS id, row_number() OVER (ORDER BY subscription_id) AS n
               FROM live_activity_tokens WHERE app_id = $2 AND kind = 'update' AND activity = $3
              ORDER BY subscription_id LIMIT $4) t
      GROUP BY (n - 1) / $5
     ON CONFLICT DO NOTHING`,
    [sendId, appId, activityId, cap, size],
  );
  return res.rowCount ?? 0;
}

/** The tokens of a chunk's installs that still hold one for the activity (the others are skipped). */
export async function loadActivityDevices(db: Queryable, appId: string, activityId: string, entries: string[]): Promise<ChunkDevices> {
  const res = await db.query<Device>(
    `SELECT t.subscription_id::text AS entry, t.subscription_id::text AS "subscriptionId", t.token, s.language, s.environment
       FROM live_activity_tokens t JOIN subscriptions s ON s.id = t.subscription_id
      WHERE t.app_id = $1 AND t.kind = 'update' AND t.activity = $2 AND t.subscription_id = ANY($3::uuid[])`,
    [appId, activityId, entries],
  );
  return { devices: res.rows, entries };
}
