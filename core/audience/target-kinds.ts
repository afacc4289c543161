// One table of target kinds (issue 36 point 3; contract "Target rule"): each kind of audience a send
// names says here, once, which body fields name it, what its stored `target_kind` is, whether it is
// a list and how long it may be, how its audience is found (and so counted, estimated and planned),
// which class bucket its body draws, the body it is written back as (a Send's spec) and how the
// dashboard shows it. Callers ask the table (targetKind, isListTarget, …) instead of comparing kinds;
// adding a kind, or another spelling of a field (OneSignal v1's include_player_ids), is one row.
// The field readers of the rule stage are keyed by the same kinds: core/validation/send-target.ts.
import type { AudienceCondition, SendTarget } from '../send-model/request.js';
import { singleTagFilter, type FilterEntry } from './filter-schema.js';
import { segmentNamed } from '../formats/built-in-segments.js';
import { ONESIGNAL_ID } from '../formats/alias-label.js';

export type TargetKind = SendTarget['kind'];
export type TargetOf<K extends TargetKind> = Extract<SendTarget, { kind: K }>;

/**
 * How a kind's audience is found, and so counted, estimated and planned:
 * - `condition`: a condition on the app's installs (core/audience/filter.ts), counted at a snapshot
 *   mark (the highest seq), planned in keyset chunks by seq; an unbounded broadcast, throttled;
 * - `list`: the ids given (distinct), counted as their number, planned as one chunk of them;
 * - `activity`: the update tokens of one Live Activity, counted and planned from its tokens.
 */
export type AudienceShape = 'condition' | 'list' | 'activity';

/** Who a send was for, as the dashboard reads it from a stored send (only these parts of the target). */
export interface TargetSummary {
  segment?: string | null;
  /** included_segments' other names (issue 38: their union). */
  or_segments?: string[] | null;
  tag?: { key: string; relation: string; value?: string } | null;
  /** A filters target's groups. */
  groups?: number | null;
  /** A list's number of distinct ids (the send's total_recipients for a stored send). */
  ids?: number | null;
  /** An include_aliases send's label (other than external_id). */
  label?: string | null;
  /** Live Activity pushes: the activity updated or ended, and the event. */
  activity?: string | null;
  la_event?: string | null;
}

export interface TargetKindRow<K extends TargetKind> {
  /** SendTarget.kind, and the `sends.target_kind` column a send of it is stored with. */
  readonly kind: K;
  /** The contract's body field that names it (none: named by the call's path, a Live Activity's). */
  readonly field?: string;
  /** Other clients' spellings of `field`, read as it is with their own name in sentences (OneSignal v1, issue 38). */
  readonly otherSpellings?: readonly { field: string; means: string }[];
  readonly audience: AudienceShape;
  /** A list's ids, or included_segments' names: at most this many in one send (contract "Limits"). */
  readonly limit?: number;
  /** The class bucket a body naming it draws (DECISIONS "Limits"): the contract's `broadcast` for a condition, else `send`. */
  readonly bucket: 'broadcast' | 'send';
  /**
   * The identity of its `audience` bucket (one per audience and app, DECISIONS "Limits") from the
   * field's value as written, read before any rule; undefined: no audience bucket is drawn.
   */
  audienceKey?(value: unknown): string | undefined;
  /** A list: the alias label its ids are under (none: subscription ids, OneSignal's player ids). */
  idLabel?(target: TargetOf<K>): string | null;
  /** Whether one send of it reaches at most MAX_AUDIENCE installs (an audience with no bound of its own). */
  readonly capped: boolean;
  /** The body fields (a Send's spec) that name this target again: a mirror's spec. */
  toBody(target: TargetOf<K>): Record<string, unknown>;
  /** The parts of a target the dashboard's words read (compose's review step). */
  summary(target: TargetOf<K>): TargetSummary;
  /** In a few words for the dashboard ("Subscribed Users", "tag plan = gold", "3 external ids"). */
  describe(summary: TargetSummary): string;
}

/** Ids in one list (contract "Limits"): core/validation/limits.ts reads it from here. */
export const IDS_PER_LIST = 500;
/** Segments whose union one send reaches (docs/decisions.md "Several segments"). */
export const SEGMENTS_PER_SEND = 50;

const plural = (n: number | null | undefined, noun: string) => `${n ?? 0} ${noun}${n === 1 ? '' : 's'}`;
const tagWords = (t: { key: string; relation: string; value?: string }) => `${t.key} ${t.relation}${t.value !== undefined ? ` ${t.value}` : ''}`;

/**
 * Several names: one bucket for the set, sorted and without duplicates, so the same union is the
 * same audience; an older name shares its segment's (docs/decisions.md "Several segments").
 */
function segmentsKey(segments: unknown): string | undefined {
  if (!Array.isArray(segments) || segments.length === 0 || !segments.every((s) => typeof s === 'string')) return undefined;
  const names = [...new Set(segments.map((s: string) => segmentNamed(s)))].sort();
  return names.length === 1 ? `segment:${names[0]}` : `segments:${JSON.stringify(names)}`;
}

function tagKey(tag: unknown): string | undefined {
  if (!tag || typeof tag !== 'object') return undefined;
  const t = tag as Record<string, unknown>;
  return `tag:${JSON.stringify([t.key, t.relation, t.value ?? null])}`;
}

/** The rows, in the order the rules list the contract's fields (a missing target is reported with the first). */
export const TARGET_KINDS: {
  readonly [K in TargetKind]: TargetKindRow<K> & (K extends 'activity' ? unknown : { readonly field: string }) & (K extends ListKind | 'segment' ? { readonly limit: number } : unknown);
} = {
  segment: {
    kind: 'segment',
    field: 'included_segments',
    audience: 'condition',
    limit: SEGMENTS_PER_SEND,
    bucket: 'broadcast',
    audienceKey: segmentsKey,
    capped: true,
    toBody: (t) => ({ included_segments: [t.segment, ...(t.orSegments ?? [])] }),
    summary: (t) => ({ segment: t.segment, or_segments: t.orSegments ?? null }),
    describe: (r) => [r.segment ?? 'a segment', ...(r.or_segments ?? [])].join(' or '),
  },
  tag: {
    kind: 'tag',
    field: 'tag',
    audience: 'condition',
    bucket: 'broadcast',
    audienceKey: tagKey,
    capped: true,
    toBody: (t) => ({ tag: { key: t.tag.key, relation: t.tag.relation, ...(t.tag.value !== undefined ? { value: t.tag.value } : {}) } }),
    summary: (t) => ({ tag: t.tag }),
    describe: (r) => (r.tag ? `tag ${tagWords(r.tag)}` : 'tag'),
  },
  filters: {
    kind: 'filters',
    field: 'filters',
    audience: 'condition',
    bucket: 'broadcast',
    // One tag condition is the tag's audience; several, the same list is the same audience (hashed by the limiter).
    audienceKey: (filters) => {
      const single = singleTagFilter(filters);
      return single ? tagKey(single) : Array.isArray(filters) ? `filters:${JSON.stringify(filters)}` : undefined;
    },
    capped: true,
    toBody: (t) => ({ filters: filterEntries(t.groups) }),
    summary: (t) => ({ groups: t.groups.length }),
    describe: (r) => `filters (${r.groups ?? 1} group${r.groups === 1 ? '' : 's'})`,
  },
  subscription_ids: {
    kind: 'subscription_ids',
    field: 'include_subscription_ids',
    otherSpellings: [{ field: 'include_player_ids', means: 'player ids (Subscription IDs)' }],
    audience: 'list',
    limit: IDS_PER_LIST,
    bucket: 'send',
    capped: false,
    idLabel: () => null,
    toBody: (t) => ({ include_subscription_ids: t.ids }),
    summary: (t) => ({ ids: t.ids.length }),
    describe: (r) => plural(r.ids, 'subscription id'),
  },
  external_ids: {
    kind: 'external_ids',
    field: 'include_external_ids',
    otherSpellings: [{ field: 'include_external_user_ids', means: 'External IDs' }],
    audience: 'list',
    limit: IDS_PER_LIST,
    bucket: 'send',
    capped: false,
    idLabel: () => EXTERNAL_ID,
    toBody: (t) => ({ include_external_ids: t.ids }),
    summary: (t) => ({ ids: t.ids.length }),
    describe: (r) => plural(r.ids, 'external id'),
  },
  // include_aliases of a label other than external_id (issue 27); external_id is external_ids.
  aliases: {
    kind: 'aliases',
    field: 'include_aliases',
    audience: 'list',
    limit: IDS_PER_LIST,
    bucket: 'send',
    capped: false,
    idLabel: (t) => t.label,
    toBody: (t) => ({ include_aliases: { [t.label]: t.ids } }),
    summary: (t) => ({ ids: t.ids.length, label: t.label }),
    describe: (r) => plural(r.ids, `${r.label ?? 'alias'} id`),
  },
  // A Live Activity's update or end: named by the call's path, never mirrored as a Send (controller/sends/mirror.ts).
  activity: {
    kind: 'activity',
    audience: 'activity',
    bucket: 'send',
    capped: true,
    toBody: () => ({}),
    summary: () => ({}),
    describe: (r) => `Live Activity ${r.activity ?? ''} (${r.la_event ?? 'update'})`,
  },
};

/** The row of a kind; undefined for a kind no row has (a stored value from elsewhere). */
export function targetKind<K extends TargetKind>(kind: K): TargetKindRow<K>;
export function targetKind(kind: string): TargetKindRow<TargetKind> | undefined;
export function targetKind(kind: string): TargetKindRow<TargetKind> | undefined {
  return Object.hasOwn(TARGET_KINDS, kind) ? (TARGET_KINDS[kind as TargetKind] as TargetKindRow<TargetKind>) : undefined;
}

const ROWS = Object.values(TARGET_KINDS) as TargetKindRow<TargetKind>[];
const kindsOf = (shape: AudienceShape) => ROWS.filter((r) => r.audience === shape).map((r) => r.kind);

/** The kinds that name their audience in a list of ids. */
export const LIST_KINDS = kindsOf('list') as ListKind[];
export type ListKind = 'subscription_ids' | 'external_ids' | 'aliases';
export type ConditionKind = 'segment' | 'tag' | 'filters';

/** A list target: its ids are its audience (counted as their number, planned as one chunk). */
export function isListTarget<T extends Pick<SendTarget, 'kind'>>(target: T): target is Extract<T, { kind: ListKind }> {
  return TARGET_KINDS[target.kind].audience === 'list';
}

/** A condition on installs (segments, tag, filters): a broadcast, counted at a snapshot, planned by seq, throttled. */
export function isConditionTarget<T extends Pick<SendTarget, 'kind'>>(target: T): target is Extract<T, { kind: ConditionKind }> {
  return TARGET_KINDS[target.kind].audience === 'condition';
}

/**
 * Body fields that name an audience, in the order the rules name them: the contract's fields in the
 * rows' order, then the other clients' spellings. Each field named counts as one target, so naming
 * both spellings of one list (or `filters` beside `tag`) is two targets.
 */
export const TARGET_FIELDS: readonly string[] = [
  ...ROWS.flatMap((r) => (r.field ? [r.field] : [])),
  ...ROWS.flatMap((r) => (r.otherSpellings ?? []).map((s) => s.field)),
];

/** What a body field names: its row, and for another spelling what its list holds (for sentences). */
export function targetField(field: string): { row: TargetKindRow<TargetKind>; spelling?: { field: string; means: string } } | undefined {
  for (const row of ROWS) {
    if (row.field === field) return { row };
    const spelling = row.otherSpellings?.find((s) => s.field === field);
    if (spelling) return { row, spelling };
  }
  return undefined;
}

/** The class bucket a send body draws, and its audience bucket's identity when it names exactly one condition target. */
export interface TargetDraw {
  bucket: 'send' | 'broadcast';
  audience?: string;
}

/**
 * The buckets a send body draws, read before any body rule runs (DECISIONS "Limits"): `broadcast`
 * when it names a condition target (several targets, refused later, included), else `send`; the
 * `audience` bucket only when exactly one target is named and its value can name an audience.
 */
export function targetDraw(body: Record<string, unknown>): TargetDraw {
  const named = ROWS.filter((r) => r.bucket === 'broadcast' && r.field !== undefined && body[r.field] !== undefined);
  if (!named.length) return { bucket: 'send' };
  const audience = named.length === 1 ? named[0].audienceKey?.(body[named[0].field!]) : undefined;
  return audience === undefined ? { bucket: 'broadcast' } : { bucket: 'broadcast', audience };
}

/** The alias label whose ids make include_external_ids (include_aliases.external_id). */
export const EXTERNAL_ID = 'external_id';

/** What a list's ids are matched against: an install's id, its external id, a user's own id (onesignal_id) or another label's alias id. */
export type ListIdKind = 'subscription' | 'external' | 'onesignal' | 'alias';

/** The kind of id under an alias label (null: subscription ids). */
export function idKindOfLabel(label: string | null): ListIdKind {
  return label === null ? 'subscription' : label === EXTERNAL_ID ? 'external' : label === ONESIGNAL_ID ? 'onesignal' : 'alias';
}

/** The alias label a list target's ids are under (null: subscription ids). */
export function listIdLabel(target: Extract<SendTarget, { kind: ListKind }>): string | null {
  return (TARGET_KINDS[target.kind] as TargetKindRow<TargetKind>).idLabel?.(target) ?? null;
}

/** The body fields (a Send's spec) of a target, its excluded segments included. */
export function targetBody(target: SendTarget): Record<string, unknown> {
  const row = TARGET_KINDS[target.kind] as TargetKindRow<TargetKind>;
  return { ...row.toBody(target), ...(target.excluding ? { excluded_segments: target.excluding } : {}) };
}

/** A validated target in the dashboard's words (without what narrows it). */
export function targetSummary(target: SendTarget): TargetSummary {
  return (TARGET_KINDS[target.kind] as TargetKindRow<TargetKind>).summary(target);
}

/** The names of the segments a target reaches through (included, then excluded). */
export function segmentsNamed(target: SendTarget): string[] {
  return [...(target.kind === 'segment' ? [target.segment, ...(target.orSegments ?? [])] : []), ...(target.excluding ?? [])];
}

/** A filters target as the client writes it: each group's conditions, {"operator": "OR"} between. */
export function filterEntries(groups: AudienceCondition[][]): FilterEntry[] {
  return groups.flatMap((group, i) => [
    ...(i > 0 ? [{ operator: 'OR' as const }] : []),
    ...group.map((c): FilterEntry => {
      if (c.field === 'tag') return { field: 'tag', key: c.key, relation: c.relation, ...(c.value !== undefined ? { value: c.value } : {}) };
      if (c.field === 'language') return { field: 'language', relation: c.relation, value: c.value };
      if ('hoursAgo' in c) return { field: c.field, relation: c.relation, hours_ago: String(c.hoursAgo) };
      return { field: c.field, relation: c.relation, value: String(c.value) };
    }),
  ]);
}
