// The latest channel management outcome of each App using broadcast channels (migration 049),
// which the App controller shows as its BroadcastChannelsReady condition (controller/apps/sync.ts)
// and `herald_live_activity_channel_failures_total` counts: a failure (create, broadcast,
// delete) marks the App failing with its reason until a success of any stage clears it. A success
// writes only when the App was failing, so a healthy App's updates cost no statement here.
import type { Queryable } from '../store/db.js';

export type ChannelStage = 'create' | 'broadcast' | 'delete';

/**
 * The counter every role that manages channels exports under one name: the api (create,
 * broadcast), and the senders and the controller, whichever leads the scheduler (delete).
 */
export const CHANNEL_FAILURES_METRIC = {
  name: 'herald_live_activity_channel_failures_total',
  help: 'Broadcast channel work that failed, by stage (create and broadcast fall back to per-token delivery; delete is tried again 5 minutes later) and reason (a bounded set)',
  labelNames: ['stage', 'reason'] as const,
};

export interface ChannelHealth {
  failing: boolean;
  stage: ChannelStage;
  reason: string;
  failures: number;
  failedAt: Date | null;
  recoveredAt: Date | null;
}

export async function recordChannelFailure(db: Queryable, appId: string, stage: ChannelStage, reason: string): Promise<void> {
  await db.query(
    `INSERT INTO live_activity_channel_health (app_id, failing, stage, reason, failures, failed_at) VALUES ($1, true, $2, $3, 1, now())
     ON CONFLICT (app_id) DO UPDATE SET failing = true, stage = $2, reason = $3, failures = live_activity_channel_health.failures + 1, failed_at = now()`,
    [appId, stage, reason],
  );
}

/** The SQL that clears an App's failing mark (to run inside another statement of the same success: `$1` is the app id). */
export const CLEAR_FAILING_SQL = `UPDATE live_activity_channel_health SET failing = false, recovered_at = now() WHERE app_id = $1 AND failing`;

export async function recordChannelSuccess(db: Queryable, appId: string): Promise<void> {
  await db.query(CLEAR_FAILING_SQL, [appId]);
}

export async function readChannelHealth(db: Queryable, appId: string): Promise<ChannelHealth | undefined> {
  const res = await db.query<{ failing: boolean; stage: ChannelStage; reason: string; failures: string; failed_at: Date | null; recovered_at: Date | null }>(
    'SELECT failing, stage, reason, failures, failed_at, recovered_at FROM live_activity_channel_health WHERE app_id = $1',
    [appId],
  );
  const r = res.rows[0];
  return r && { failing: r.failing, stage: r.stage, reason: r.reason, failures: Number(r.failures), failedAt: r.failed_at, recoveredAt: r.recovered_at };
}
