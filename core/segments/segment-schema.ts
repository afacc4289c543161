// The bodies of createSegment and updateSegment as @onesignal/node-onesignal 5.18.0 sends them
// (its Segment and UpdateSegmentRequest models), bounded by SEGMENT_LIMITS: one TypeBox schema each,
// checked by the one checker (core/validation/checker.ts) with the sentences below. Each `filters`
// entry's rules are the send's own (core/validation/filter-conditions.ts readFilters, the one
// validator of the condition language). The REST calls declare these schemas (api/routes/segments.ts)
// and the dashboard reads its form through readSegmentBody, so both say the same sentences.
import Type, { type Static } from 'typebox';
import { ValidationError, type FieldIssue } from '../errors.js';
import { checked, type Sentences } from '../validation/checker.js';
import { readFilters } from '../validation/filter-conditions.js';
import type { SegmentWrite } from './segment-store.js';
import { SEGMENT_LIMITS } from './segment-limits.js';

const NAME = Type.String({ minLength: 1, maxLength: SEGMENT_LIMITS.name, description: 'Unique among the app\'s segments; sends name it in included_segments / excluded_segments.' });
// Entries are objects here; what each may hold is readFilters' (a sentence per broken rule).
const FILTERS = Type.Array(Type.Unsafe<Record<string, unknown>>({ type: 'object' }), { minItems: 1, maxItems: SEGMENT_LIMITS.filter_entries, description: 'The condition language of a send\'s filters.' });

export const CREATE_SEGMENT_BODY = Type.Object(
  {
    id: Type.Optional(Type.String({ format: 'uuid', description: 'Optional: the segment\'s id, else one is made.' })),
    name: NAME,
    filters: FILTERS,
  },
  { additionalProperties: false },
);

export const UPDATE_SEGMENT_BODY = Type.Object({ name: NAME, filters: Type.Optional(FILTERS) }, { additionalProperties: false });

export type CreateSegmentBody = Static<typeof CREATE_SEGMENT_BODY>;
export type UpdateSegmentBody = Static<typeof UPDATE_SEGMENT_BODY>;

/** The segment calls' own sentences (docs/api.md "Segments"); the rest are the checker's. */
export const SEGMENT_SENTENCES: Sentences = {
  'name:maxLength': `name is longer than ${SEGMENT_LIMITS.name} characters.`,
  'name:minLength': 'name is empty.',
  'filters:minItems': `filters holds 1 to ${SEGMENT_LIMITS.filter_entries} entries.`,
  'filters:maxItems': `filters holds 1 to ${SEGMENT_LIMITS.filter_entries} entries.`,
  'id:format': 'id must be a UUID.',
  // The wording these calls gave a wrong type before the one checker (docs/api.md "Segments").
  'name:type': 'name must be of type string.',
  'id:type': 'id must be of type string.',
  'filters:type': 'filters must be of type array.',
  'filters[]:type': (field) => `${field} must be an object.`,
  '*:additionalProperties': (field) => `${field} is not a field of a segment Herald keeps (docs/api.md "Segments").`,
};

/** A checked body read: its name, and its filters (absent: unchanged) by the send's rules (a 422 naming each broken entry), with the groups they mean. */
export function segmentWrite(body: Partial<CreateSegmentBody> & UpdateSegmentBody): SegmentWrite {
  const id = body.id?.toLowerCase();
  if (body.filters === undefined) return { id, name: body.name };
  const issues: FieldIssue[] = [];
  const groups = readFilters(body.filters, issues);
  if (!groups) throw new ValidationError(issues);
  return { id, name: body.name, filters: body.filters, groups };
}

/** An unchecked body (the dashboard's form) checked and read as the REST calls read theirs. */
export function readSegmentBody(which: 'create' | 'update', body: unknown): SegmentWrite {
  return segmentWrite(checked(which === 'create' ? CREATE_SEGMENT_BODY : UPDATE_SEGMENT_BODY, body, SEGMENT_SENTENCES));
}
