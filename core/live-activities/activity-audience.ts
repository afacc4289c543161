// The audience of a Live Activity's update or end: the installs that registered an update token
// for the activity (live_activity_tokens, kind 'update'), whether or not they take notifications
// (a Live Activity has its own switch in iOS Settings, apart from notifications). Counted at the
// answer, chunked by the planner (the installs of each chunk in `entries`, so a chunk is the same
// on every attempt), loaded by the sender. Every statement reads the table's primary key.
import type { Queryable } from '../store/db.js';
import type { ChunkDevices, Device } from '../send-model/devices.js';

export async function countActivityTokens(db: Queryable, appId: string, activityId: string): Promise<number> {
  const res = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM live_activity_tokens WHERE app_id = $1 AND kind = 'update' AND activity = $2`,
    [appId, activityId],
  );
  return res.rows[0].n;
}

/**
 * The installs an activity's send delivers to, in the order its chunks take them (by install id),
 * at most `limit`: an SQL array of subscription ids (text), given the app, the activity and the
 * limit as SQL expressions. The accept statement's one chunk (core/send/create-send.ts) and the
 * planner's chunks (planActivityChunks) both build it here, so a first chunk is the same installs
 * whichever of them records it.
 */
export function activityInstallsSql(appId: string, activity: string, limit: string): string {
  return `ARRAY(SELECT t.subscription_id::text FROM live_activity_tokens t
                 WHERE t.app_id = ${appId} AND t.kind = 'update' AND t.activity = ${activity}
                 ORDER BY t.subscription_id LIMIT ${limit})`;
}

const PLAN_CHUNKS = `INSERT INTO send_chunks (send_id, chunk, planned, entries)
     SELECT $1, (n - 1) / $5, count(*), array_agg(id ORDER BY n)
       FROM unnest(${activityInstallsSql('$2::uuid', '$3::text', '$4::int')}) WITH ORDINALITY AS t(id, n)
      GROUP BY (n - 1) / $5
     ON CONFLICT DO NOTHING`;

/**
 * Records the chunks of an activity's send, at most `size` installs each and `cap` in all (the
 * count the answer gave: a send never delivers to more). Returns how many chunks it recorded.
 */
export async function planActivityChunks(db: Queryable, sendId: number, appId: string, activityId: string, cap: number, size: number): Promise<number> {
  if (cap <= 0) return 0;
  const res = await db.query(PLAN_CHUNKS, [sendId, appId, activityId, cap, size]);
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
