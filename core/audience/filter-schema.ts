// One entry of a send's `filters`, as the official client sends it: a condition on a field of the
// install, or `{"operator": "OR"}` between groups of conditions (neighbours are ANDed). One flat
// object (every member optional) rather than a union: a CRD's structural schema takes no unions,
// and the rule stage (core/validation/filter-conditions.ts) says which combinations are valid, each
// with its own sentence. The send body's one schema takes it from here; so do the OpenAPI
// document and the Send CRD, generated from that schema.
import Type, { type Static } from 'typebox';
import { TAG_MAX_CHARS, TAG_RELATIONS, type TagRelation } from '../formats/tags.js';

/** Fields of an install a filter may name (what subscriptions records). */
export const FILTER_FIELDS = ['tag', 'language', 'last_session', 'first_session', 'session_count', 'session_time', 'amount_spent'] as const;
/** The counted fields (issue 38): a number compared with >, <, = or !=. */
export const COUNTER_FIELDS = ['session_count', 'session_time', 'amount_spent'] as const;
/** Entries of one `filters` list, operators included (OneSignal's limit). */
export const MAX_FILTER_ENTRIES = 200;

export const FilterEntry = Type.Object({
  field: Type.Optional(Type.Unsafe<(typeof FILTER_FIELDS)[number]>({ type: 'string', enum: [...FILTER_FIELDS], description: 'tag (default), language, last_session, first_session, session_count, session_time (seconds) or amount_spent.' })),
  key: Type.Optional(Type.String({ minLength: 1, maxLength: TAG_MAX_CHARS, description: 'The tag key (field tag).' })),
  // A tag's relations (core/formats/tags.ts); the rule stage says which ones the other fields take.
  relation: Type.Optional(Type.Unsafe<TagRelation>({ type: 'string', enum: [...TAG_RELATIONS] })),
  value: Type.Optional(Type.String({ maxLength: TAG_MAX_CHARS })),
  hours_ago: Type.Optional(Type.String({ maxLength: 16, description: 'last_session / first_session: hours before now, e.g. "24" or "1.5".' })),
  operator: Type.Optional(Type.Unsafe<'OR' | 'AND'>({ type: 'string', enum: ['OR', 'AND'], description: '"OR" between groups of conditions.' })),
});

export type FilterEntry = Static<typeof FilterEntry>;

/**
 * The entry of a `filters` that is one tag condition: the contract's tag target, as it always was
 * (it maps to a Send's tag, and draws the audience bucket of that tag). Read before validation too.
 */
export function singleTagFilter(filters: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(filters) || filters.length !== 1) return undefined;
  const entry: unknown = filters[0];
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return undefined;
  const e = entry as Record<string, unknown>;
  return (e.field ?? 'tag') === 'tag' && e.operator === undefined ? e : undefined;
}
