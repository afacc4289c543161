// The bodies of createSegment and updateSegment as @onesignal/node-onesignal 5.18.0 sends them
// (its Segment and UpdateSegmentRequest models), bounded by SEGMENT_LIMITS. The shape is checked
// here; each `filters` entry's rules are the send's own (core/validation/filter-conditions.ts
// readFilters, the one validator of the condition language). One definition: the routes validate
// with it and the OpenAPI document publishes it (api/openapi/segment-paths.ts).
import { Ajv, type ErrorObject } from 'ajv';
import { ValidationError, type FieldIssue } from '../errors.js';
import { FilterEntry } from '../audience/filter-schema.js';
import { readFilters } from '../validation/filter-conditions.js';
import type { AudienceCondition } from '../send-model/request.js';
import { SEGMENT_LIMITS } from './segment-limits.js';
import { isUuid } from '../formats/uuid.js';

const NAME = { type: 'string', minLength: 1, maxLength: SEGMENT_LIMITS.name, description: 'Unique among the app\'s segments; sends name it in included_segments / excluded_segments.' };
// Entries are objects here; what each may hold is readFilters' (a sentence per broken rule).
const FILTERS = { type: 'array', minItems: 1, maxItems: SEGMENT_LIMITS.filter_entries, items: { type: 'object' }, description: 'The condition language of a send\'s filters.' };

export const CREATE_SEGMENT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'filters'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'Optional: the segment\'s id, else one is made.' },
    name: NAME,
    filters: FILTERS,
  },
};

export const UPDATE_SEGMENT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: NAME, filters: FILTERS },
};

/** The OpenAPI form of one entry (the send body's FilterEntry). */
export const SEGMENT_FILTER_ENTRY = FilterEntry;

const ajv = new Ajv({ allErrors: false, formats: { uuid: isUuid } });
const checks = { create: ajv.compile(CREATE_SEGMENT_SCHEMA), update: ajv.compile(UPDATE_SEGMENT_SCHEMA) };

export interface SegmentBody {
  id?: string;
  name: string;
  filters?: Record<string, unknown>[];
}

/** The body read: its name, and its filters with the groups they mean (absent: unchanged). 422 naming the field otherwise. */
export function readSegmentBody(which: keyof typeof checks, body: unknown): { id?: string; name: string; filters?: Record<string, unknown>[]; groups?: AudienceCondition[][] } {
  const check = checks[which];
  if (!check(body)) throw new ValidationError((check.errors ?? []).map(issueOf));
  const b = body as unknown as SegmentBody;
  if (b.filters === undefined) return { id: b.id?.toLowerCase(), name: b.name };
  const issues: FieldIssue[] = [];
  const groups = readFilters(b.filters, issues);
  if (!groups) throw new ValidationError(issues);
  return { id: b.id?.toLowerCase(), name: b.name, filters: b.filters, groups };
}

function issueOf(e: ErrorObject): FieldIssue {
  const at = e.instancePath.replace(/^\//, '').replace(/\/(\d+)/g, '[$1]').replace(/\//g, '.');
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { field: String(params.missingProperty), message: `${String(params.missingProperty)} is required.` };
    case 'additionalProperties':
      return { field: String(params.additionalProperty), message: `${String(params.additionalProperty)} is not a field of a segment Herald keeps (docs/api.md "Segments").` };
    case 'maxLength':
      return { field: at, message: `${at} is longer than ${String(params.limit)} characters.` };
    case 'minLength':
      return { field: at, message: `${at} is empty.` };
    case 'maxItems':
    case 'minItems':
      return { field: at, message: `${at} holds 1 to ${SEGMENT_LIMITS.filter_entries} entries.` };
    case 'format':
      return { field: at, message: `${at} must be a UUID.` };
    case 'type':
      return { field: at || 'body', message: `${at || 'The body'} must be ${String(params.type) === 'object' ? 'an object' : `of type ${String(params.type)}`}.` };
    default:
      return { field: at, message: `${at || 'body'} ${e.message ?? 'is not valid'}.` };
  }
}
