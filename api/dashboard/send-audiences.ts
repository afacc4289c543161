// Who a send was for, in a few words for the list and the report ("Subscribed Users",
// "tag plan = gold", "3 external ids", "Live Activity match-7 (end)"). Read from the send's recorded request, only the parts named
// here: a list send's ids are not loaded. Their number is the send's audience (total_recipients,
// the distinct ids given), not the ids left in the request: an erasure (deleteUser) takes a user's
// ids out of every list send and keeps its counts, so a send to one erased external id is still
// "1 external id", never "0 external ids (1)".
import type { Queryable } from '../../core/store/db.js';
import { requestJsonSql, requestTextSql, type RequestPart, type SendTarget } from '../../core/send-model/request.js';

const target = (part: RequestPart<'target'>) => requestJsonSql('request', 'target', part);
const arrayLength = (json: string) => `jsonb_array_length(CASE WHEN jsonb_typeof(${json}) = 'array' THEN ${json} END)`;

interface Row {
  id: string;
  target_kind: string;
  segment: string | null;
  /** included_segments' other names (issue 38: their union). */
  or_segments?: string[] | null;
  tag: { key: string; relation: string; value?: string } | null;
  groups: number | null;
  ids: number | null;
  excluding: string[] | null;
  /** Live Activity pushes: the activity updated or ended, the type a start pushes to, the event. */
  activity?: string | null;
  push_to_start?: string | null;
  /** An include_aliases send's label (other than external_id). */
  label?: string | null;
  la_event?: string | null;
}

export function describe(r: Omit<Row, 'id'>): string {
  const base =
    r.target_kind === 'segment' ? [r.segment ?? 'a segment', ...(r.or_segments ?? [])].join(' or ')
      : r.target_kind === 'tag' && r.tag ? `tag ${r.tag.key} ${r.tag.relation}${r.tag.value !== undefined ? ` ${r.tag.value}` : ''}`
        : r.target_kind === 'filters' ? `filters (${r.groups ?? 1} group${r.groups === 1 ? '' : 's'})`
          : r.target_kind === 'subscription_ids' ? `${r.ids ?? 0} subscription id${r.ids === 1 ? '' : 's'}`
            : r.target_kind === 'external_ids' ? `${r.ids ?? 0} external id${r.ids === 1 ? '' : 's'}`
              : r.target_kind === 'aliases' ? `${r.ids ?? 0} ${r.label ?? 'alias'} id${r.ids === 1 ? '' : 's'}`
              : r.target_kind === 'activity' ? `Live Activity ${r.activity ?? ''} (${r.la_event ?? 'update'})`
                : r.target_kind;
  const narrowed = r.excluding?.length ? `${base}, without ${r.excluding.join(', ')}` : base;
  return r.push_to_start ? `Live Activity start ${r.push_to_start}: ${narrowed}` : narrowed;
}

/** The target kinds that name their audience in a list of ids. */
const LIST_KINDS = ['subscription_ids', 'external_ids', 'aliases'] as const;

/** A validated target in the same words (compose's review step). */
export const describeTarget = (t: SendTarget) =>
  describe({
    target_kind: t.kind,
    segment: t.kind === 'segment' ? t.segment : null,
    or_segments: t.kind === 'segment' ? (t.orSegments ?? null) : null,
    tag: t.kind === 'tag' ? t.tag : null,
    groups: t.kind === 'filters' ? t.groups.length : null,
    ids: t.kind === 'subscription_ids' || t.kind === 'external_ids' || t.kind === 'aliases' ? t.ids.length : null,
    label: t.kind === 'aliases' ? t.label : null,
    excluding: t.excluding ?? null,
  });

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
