// Who a send was for, in a few words for the list and the report ("Subscribed Users",
// "tag plan = gold", "3 external ids", "Live Activity match-7 (end)"). Read from the send's recorded request, only the parts named
// here: a list send's ids are not loaded. Their number is the send's audience (total_recipients,
// the distinct ids given), not the ids left in the request: an erasure (deleteUser) takes a user's
// ids out of every list send and keeps its counts, so a send to one erased external id is still
// "1 external id", never "0 external ids (1)".
import type { Queryable } from '../../core/store/db.js';
import { requestJsonSql, requestTextSql, type RequestPart, type SendTarget } from '../../core/send-model/request.js';
import { LIST_KINDS, targetKind, targetSummary, type TargetSummary } from '../../core/audience/target-kinds.js';

const target = (part: RequestPart<'target'>) => requestJsonSql('request', 'target', part);
const arrayLength = (json: string) => `jsonb_array_length(CASE WHEN jsonb_typeof(${json}) = 'array' THEN ${json} END)`;

/** The parts of a stored send's target the words read (core/audience/target-kinds.ts TargetSummary), and what narrows it. */
interface Row extends TargetSummary {
  id: string;
  target_kind: string;
  excluding: string[] | null;
  /** A Live Activity start: the type it pushes to. */
  push_to_start?: string | null;
}

export function describe(r: Omit<Row, 'id'>): string {
  const base = targetKind(r.target_kind)?.describe(r) ?? r.target_kind;
  const narrowed = r.excluding?.length ? `${base}, without ${r.excluding.join(', ')}` : base;
  return r.push_to_start ? `Live Activity start ${r.push_to_start}: ${narrowed}` : narrowed;
}

/** A validated target in the same words (compose's review step). */
export const describeTarget = (t: SendTarget) => describe({ target_kind: t.kind, ...targetSummary(t), excluding: t.excluding ?? null });

/** Send id → its audience in words, for these sends of one app (a page: at most 50 ids). */
export async function sendAudiences(db: Queryable, appId: string, ids: number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const res = await db.query<Row>(
    `SELECT id, target_kind, ${requestTextSql('request', 'target', 'segment')} AS segment,
            ${target('orSegments')} AS or_segments, ${target('tag')} AS tag,
            ${arrayLength(target('groups'))} AS groups, CASE WHEN target_kind IN (${LIST_KINDS.map((k) => `'${k}'`).join(', ')}) THEN total_recipients END AS ids,
            ${target('excluding')} AS excluding, ${requestTextSql('request', 'target', 'activityId')} AS activity,
            ${requestTextSql('request', 'target', 'pushToStart')} AS push_to_start, ${requestTextSql('request', 'target', 'label')} AS label, ${requestTextSql('request', 'liveActivity', 'event')} AS la_event
       FROM sends WHERE app_id = $1 AND id = ANY($2::bigint[])`,
    [appId, ids],
  );
  return new Map(res.rows.map((r) => [Number(r.id), describe(r)]));
}
