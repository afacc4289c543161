// The broadcast channel of each Live Activity (migration 036): one per app, activity id and APNs
// environment, kept from the first start that made it; read by the primary key.
import type { Queryable } from '../store/db.js';

export interface ActivityChannelKey {
  appId: string;
  activity: string;
  environment: 'production' | 'sandbox';
}

export interface ActivityChannel {
  channelId: string;
  /** The app's credentials' version (their updated_at in ms, 0: none), as a chunk's claim reads it: a client is rebuilt when it changes. */
  credentialsVersion: number;
}

export async function findActivityChannel(db: Queryable, k: ActivityChannelKey): Promise<ActivityChannel | undefined> {
  const res = await db.query<{ channel_id: string; cred_version: string }>(
    `SELECT l.channel_id, coalesce(extract(epoch FROM c.updated_at) * 1000, 0) AS cred_version
       FROM live_activity_channels l LEFT JOIN app_credentials c ON c.app_id = l.app_id
      WHERE l.app_id = $1 AND l.activity = $2 AND l.environment = $3`,
    [k.appId, k.activity, k.environment],
  );
  const r = res.rows[0];
  return r && { channelId: r.channel_id, credentialsVersion: Number(r.cred_version) };
}

/**
 * Keeps `channelId` for the activity unless another start kept one first; returns the one kept
 * (the caller deletes its own at Apple when it lost).
 */
export async function keepActivityChannel(db: Queryable, k: ActivityChannelKey, channelId: string): Promise<string> {
  const res = await db.query<{ channel_id: string }>(
    `WITH kept AS (
       INSERT INTO live_activity_channels (app_id, activity, environment, channel_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (app_id, activity, environment) DO NOTHING RETURNING channel_id)
     SELECT channel_id FROM kept
     UNION ALL SELECT channel_id FROM live_activity_channels WHERE app_id = $1 AND activity = $2 AND environment = $3
     LIMIT 1`,
    [k.appId, k.activity, k.environment, channelId],
  );
  return res.rows[0].channel_id;
}
