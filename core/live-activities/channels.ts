// The broadcast channel of each Live Activity (migrations 036, 048): one per app, activity id and
// APNs environment, from the first start that made it until the sweep deletes it at Apple
// (channel-sweep.ts). Read by the primary key; each function one statement.
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

/** Apple's limit of channels per app (bundle id and environment): "Sending channel management requests to APNs". */
export const APPLE_CHANNEL_QUOTA = 10_000;

/**
 * ActivityKit ends an activity 8 hours after its start and takes it off the Lock Screen at most 4
 * hours after its end (the Live Activity update tokens' rule, tokens.ts): 12 hours after its last
 * start no activity can be subscribed to a channel any more.
 */
export const CHANNEL_IDLE_HOURS = 12;
/** Past this since its last start, every activity of a channel has ended (ActivityKit's 8 hours): the quota may take it. */
export const CHANNEL_EVICTABLE_HOURS = 8;
/** At most this long after an end's acceptance is the channel kept (Apple removes an ended activity within 4 hours). */
export const ENDED_KEEP_HOURS = 4;

export async function findActivityChannel(db: Queryable, k: ActivityChannelKey): Promise<ActivityChannel | undefined> {
  const res = await db.query<{ channel_id: string; cred_version: string }>({
    name: 'herald-find-activity-channel', // an update's path: prepared once per connection
    text: `SELECT l.channel_id, coalesce(extract(epoch FROM c.updated_at) * 1000, 0) AS cred_version
             FROM live_activity_channels l LEFT JOIN app_credentials c ON c.app_id = l.app_id
            WHERE l.app_id = $1 AND l.activity = $2 AND l.environment = $3`,
    values: [k.appId, k.activity, k.environment],
  });
  const r = res.rows[0];
  return r && { channelId: r.channel_id, credentialsVersion: Number(r.cred_version) };
}

/**
 * The channel a start names, when the activity has one: the start (re)opens it — a new activity
 * reusing the id after an end keeps the channel alive for another 12 hours.
 */
export async function startActivityChannel(db: Queryable, k: ActivityChannelKey): Promise<string | undefined> {
  const res = await db.query<{ channel_id: string }>(
    `UPDATE live_activity_channels SET started_at = now(), ended_at = NULL, delete_after = NULL
      WHERE app_id = $1 AND activity = $2 AND environment = $3 RETURNING channel_id`,
    [k.appId, k.activity, k.environment],
  );
  return res.rows[0]?.channel_id;
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

/**
 * An end was accepted: the channel goes at its dismissal (Unix seconds; none: Apple's 4 hours),
 * never later than 4 hours from now and never before now. Until then a device that was offline
 * still gets the stored end (storage policy 1).
 */
export async function endActivityChannel(db: Queryable, k: ActivityChannelKey, dismissalDate: number | undefined): Promise<void> {
  await db.query(
    `UPDATE live_activity_channels
        SET ended_at = now(),
            delete_after = greatest(now(), least(now() + make_interval(hours => ${ENDED_KEEP_HOURS}), coalesce(to_timestamp($4::float8), now() + make_interval(hours => ${ENDED_KEEP_HOURS}))))
      WHERE app_id = $1 AND activity = $2 AND environment = $3`,
    [k.appId, k.activity, k.environment, dismissalDate ?? null],
  );
}

/** A channel taken out of use, to be deleted at Apple. */
export interface RetiredChannel {
  appId: string;
  environment: 'production' | 'sandbox';
  channelId: string;
}

const RETIRE = (due: string) => `
  WITH due AS (
    SELECT app_id, activity, environment FROM live_activity_channels WHERE ${due} FOR UPDATE SKIP LOCKED
  ), gone AS (
    DELETE FROM live_activity_channels l USING due d
     WHERE l.app_id = d.app_id AND l.activity = d.activity AND l.environment = d.environment
    RETURNING l.app_id, l.environment, l.channel_id
  )
  INSERT INTO live_activity_channels_retired (app_id, environment, channel_id)
  SELECT app_id, environment, channel_id FROM gone ON CONFLICT DO NOTHING
  RETURNING app_id, environment, channel_id`;

/**
 * Moves up to `limit` channels whose activities are over (dismissed after an end, or 12 hours
 * past their last start) out of use, into the retired list; returns them.
 */
export async function retireDueChannels(db: Queryable, limit: number): Promise<RetiredChannel[]> {
  const res = await db.query<{ app_id: string; environment: RetiredChannel['environment']; channel_id: string }>(
    RETIRE(`delete_after <= now() OR started_at < now() - make_interval(hours => ${CHANNEL_IDLE_HOURS}) LIMIT $1`),
    [limit],
  );
  return res.rows.map(retired);
}

/**
 * The quota policy at a new channel (docs/live-activities.md "Channel quota"): when the app holds
 * `quota` channels in the environment (kept and retired), the one that matters least is retired
 * to make room — the earliest due of the ended ones, else the one started longest ago if all its
 * activities have ended (8 hours). Returns whether there is room, and the channel retired for it.
 */
export async function makeRoomForChannel(db: Queryable, appId: string, environment: RetiredChannel['environment'], quota: number): Promise<{ room: boolean; retired?: RetiredChannel }> {
  const count = await db.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM live_activity_channels WHERE app_id = $1 AND environment = $2)
          + (SELECT count(*) FROM live_activity_channels_retired WHERE app_id = $1 AND environment = $2) AS n`,
    [appId, environment],
  );
  if (Number(count.rows[0].n) < quota) return { room: true };
  const res = await db.query<{ app_id: string; environment: RetiredChannel['environment']; channel_id: string }>(
    RETIRE(`ctid = (SELECT ctid FROM live_activity_channels
                     WHERE app_id = $1 AND environment = $2
                       AND (ended_at IS NOT NULL OR started_at < now() - make_interval(hours => ${CHANNEL_EVICTABLE_HOURS}))
                     ORDER BY ended_at IS NULL, coalesce(delete_after, started_at) LIMIT 1)`),
    [appId, environment],
  );
  return res.rows[0] ? { room: true, retired: retired(res.rows[0]) } : { room: false };
}

/** Claims up to `limit` retired channels due for a DELETE at Apple, with their app's bundle id; the claim holds 5 minutes (a crash mid-way retries then). */
export async function claimRetiredChannels(db: Queryable, limit: number): Promise<Array<RetiredChannel & { bundleId: string }>> {
  const res = await db.query<{ app_id: string; environment: RetiredChannel['environment']; channel_id: string; bundle_id: string }>(
    `UPDATE live_activity_channels_retired r SET attempts = attempts + 1, next_attempt_at = now() + interval '5 minutes'
       FROM (SELECT app_id, environment, channel_id FROM live_activity_channels_retired
              WHERE next_attempt_at <= now() ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED) d
      WHERE r.app_id = d.app_id AND r.environment = d.environment AND r.channel_id = d.channel_id
      RETURNING r.app_id, r.environment, r.channel_id, (SELECT bundle_id FROM apps WHERE id = r.app_id)`,
    [limit],
  );
  return res.rows.map((r) => ({ ...retired(r), bundleId: r.bundle_id }));
}

/** Apple no longer has it (deleted now, or unknown to it already): forgotten. */
export async function forgetRetiredChannel(db: Queryable, c: RetiredChannel): Promise<void> {
  await db.query('DELETE FROM live_activity_channels_retired WHERE app_id = $1 AND environment = $2 AND channel_id = $3', [c.appId, c.environment, c.channelId]);
}

/** Apple's DELETE failed: kept, tried again when the claim runs out, with what went wrong. */
export async function noteRetiredFailure(db: Queryable, c: RetiredChannel, reason: string): Promise<void> {
  await db.query('UPDATE live_activity_channels_retired SET last_reason = $4 WHERE app_id = $1 AND environment = $2 AND channel_id = $3', [c.appId, c.environment, c.channelId, reason]);
}

function retired(r: { app_id: string; environment: RetiredChannel['environment']; channel_id: string }): RetiredChannel {
  return { appId: r.app_id, environment: r.environment, channelId: r.channel_id };
}
