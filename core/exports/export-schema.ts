// The body of exportSubscriptions as @onesignal/node-onesignal 5.18.0 sends it
// (ExportSubscriptionsRequestBody: extra_fields, last_active_since, segment_name), bounded. One
// definition: the route validates with it and the OpenAPI document publishes it.
import { Ajv, type ErrorObject } from 'ajv';
import { ValidationError, type FieldIssue } from '../errors.js';
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

// verbose: an error carries the value, so a refused column is named.
const ajv = new Ajv({ allErrors: false, verbose: true });
const check = ajv.compile(EXPORT_REQUEST_SCHEMA);

/** Throws a 422 naming the field unless `body` is an export request Herald can serve. */
export function checkExportRequest(body: unknown): asserts body is ExportRequest {
  if (!check(body)) throw new ValidationError((check.errors ?? []).map(issueOf));
}

function issueOf(e: ErrorObject): FieldIssue {
  const at = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return { field: String(params.additionalProperty), message: `${String(params.additionalProperty)} is not a field of exportSubscriptions.` };
    case 'enum': {
      const given = String(e.data);
      const why = NOT_KEPT.includes(given) ? 'Herald keeps no such data' : 'not a column of the export';
      return { field: at, message: `${at} is ${given.slice(0, 64)}: ${why}; the extra columns are ${Object.keys(EXTRA_COLUMNS).join(', ')}.` };
    }
    case 'pattern':
      return { field: at, message: `${at} must be a time in Unix seconds (up to ${EXPORT_LIMITS.last_active_since_digits} digits), as text.` };
    case 'maxLength':
      return { field: at, message: `${at} is longer than ${String(params.limit)} characters.` };
    case 'minLength':
      return { field: at, message: `${at} is empty.` };
    case 'uniqueItems':
      return { field: at, message: `${at} names a column twice.` };
    default:
      return { field: at, message: `${at || 'body'} ${e.message ?? 'is not valid'}.` };
  }
}
