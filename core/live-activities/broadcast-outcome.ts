// How a Live Activity update went out over its broadcast channel (migration 049), written on its
// send once Apple answered: the report and the list call show it beside the per-token counters.
// One statement, which also clears the App's failing mark when the broadcast was accepted
// (channel-health.ts): a healthy App's update costs one round trip here, after the request to Apple.
import type { Queryable } from '../store/db.js';
import { CLEAR_FAILING_SQL } from './channel-health.js';

export interface BroadcastOutcome {
  status: 'accepted' | 'failed';
  /** failed: Apple's reason, or the client's (a bounded set, core/live-activities/channel-managers.ts). */
  reason?: string;
}

export async function recordBroadcastOutcome(db: Queryable, appId: string, sendId: number, outcome: BroadcastOutcome): Promise<void> {
  await db.query({
    name: 'herald-record-broadcast-outcome',
    text: `WITH healthy AS (${CLEAR_FAILING_SQL} AND $3::jsonb->>'status' = 'accepted')
           UPDATE sends SET la_channel = $3 WHERE id = $2 AND app_id = $1`,
    values: [appId, sendId, JSON.stringify(outcome)],
  });
}
