// The body of exportSubscriptions as @onesignal/node-onesignal 5.18.0 sends it
// (ExportSubscriptionsRequestBody: extra_fields, last_active_since, segment_name), bounded. One
// definition: the call declares it (api/routes/exports.ts), the one checker
// (core/validation/checker.ts) checks it with the sentences below, and the OpenAPI document publishes it.
import Type from 'typebox';
import type { ErrorObject } from 'ajv';
import type { Sentences } from '../validation/checker.js';
import { EXTRA_COLUMNS } from './csv-columns.js';

/** OneSignal's other extra columns: data Herald never keeps (docs/api.md "Export"). */
const NOT_KEPT = ['location', 'country', 'rooted', 'ip', 'web_auth', 'web_p256'];

export const EXPORT_LIMITS = {
  /** A segment's name, as long as the App resource allows (and some room). */
  segment_name: 128,
  /** Unix seconds: 11 digits reach the year 5138. */
  last_active_since_digits: 11,
} as const;

export const EXPORT_REQUEST_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    extra_fields: { type: 'array', maxItems: Object.keys(EXTRA_COLUMNS).length, uniqueItems: true, items: { type: 'string', enum: Object.keys(EXTRA_COLUMNS) } },
    last_active_since: { type: 'string', pattern: `^[0-9]{1,${EXPORT_LIMITS.last_active_since_digits}}$` },
    segment_name: { type: 'string', minLength: 1, maxLength: EXPORT_LIMITS.segment_name },
  },
};

export interface ExportRequest {
  extra_fields?: string[];
  last_active_since?: string;
  segment_name?: string;
}

/** The schema, typed for the handler that receives the checked body. */
export const ExportRequestBody = Type.Unsafe<ExportRequest>(EXPORT_REQUEST_SCHEMA);

/** The call's sentences: a field it does not take, and each rule as it was refused. */
function exportSentence(path: string, e: ErrorObject): string | undefined {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return `${path} is not a field of exportSubscriptions.`;
    case 'enum': {
      const given = String(e.data);
      const why = NOT_KEPT.includes(given) ? 'Herald keeps no such data' : 'not a column of the export';
      return `${path} is ${given.slice(0, 64)}: ${why}; the extra columns are ${Object.keys(EXTRA_COLUMNS).join(', ')}.`;
    }
    case 'pattern':
      return `${path} must be a time in Unix seconds (up to ${EXPORT_LIMITS.last_active_since_digits} digits), as text.`;
    case 'maxLength':
      return `${path} is longer than ${String(params.limit)} characters.`;
    case 'minLength':
      return `${path} is empty.`;
    case 'uniqueItems':
      return `${path} names a column twice.`;
    default:
      return `${path || 'body'} ${e.message ?? 'is not valid'}.`;
  }
}

export const EXPORT_SENTENCES: Sentences = { '*': exportSentence };
