// Audience size at the moment of a call, and the snapshot mark that fixes who is in the send.
import type { Queryable } from '../store/db.js';
import type { AppRecord } from '../apps/app-store.js';
import type { SendTarget } from '../send-model/request.js';
import { audienceCondition, Params } from './filter.js';
import { countActivityTokens } from '../live-activities/activity-audience.js';
import { isListTarget } from './target-kinds.js';

export interface AudienceMeasure {
  /** Devices in the audience (distinct ids given, for list targets). */
  estimate: number;
  /** Snapshot: the highest subscription seq of the app at this moment (segment and tag targets). */
  maxSeq: number | null;
}

export async function measureAudience(db: Queryable, app: AppRecord, target: SendTarget): Promise<AudienceMeasure> {
  if (isListTarget(target)) {
    return { estimate: target.ids.length, maxSeq: null };
  }
  if (target.kind === 'activity') return { estimate: await countActivityTokens(db, app.id, target.activityId), maxSeq: null };
  const params = new Params([app.id]);
  const condition = audienceCondition(app, target, params);
  // One statement: the count and the mark come from the same snapshot.
  const res = await db.query(
    `WITH mark AS (SELECT coalesce(max(seq), 0) AS seq FROM subscriptions WHERE app_id = $1)
     SELECT mark.seq AS max_seq,
            (SELECT count(*) FROM subscriptions s WHERE s.app_id = $1 AND s.subscribed AND s.seq <= mark.seq AND ${condition}) AS n
       FROM mark`,
    params.values,
  );
  return { estimate: Number(res.rows[0].n), maxSeq: Number(res.rows[0].max_seq) };
}
