// The list filter from query parameters, shared by GET /api/v1/notifications and the dashboard:
// every value bounded, anything unreadable a 400 that names the parameter.
import { BadRequestError } from '../errors.js';
import { MAX_LIST_LIMIT, MAX_LIST_OFFSET, MAX_SEARCH_LENGTH, type ListFilter } from './report.js';
import { parseTimeOffset } from './time-offset.js';
import { SEND_STATUSES, type SendStatus } from '../send-model/states.js';
import { isSendSource, SEND_SOURCES, sourceOfKind } from '../formats/send-source.js';
import { assertStorableText } from '../validation/untrusted-json.js';

/** The list's status filter: a status, or `canceled` (a send canceled whatever its status). */
export const LIST_STATUSES: readonly (SendStatus | 'canceled')[] = [...SEND_STATUSES, 'canceled'];
const DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

type Query = Record<string, string | string[] | undefined>;

const one = (query: Query, name: string): string | undefined => {
  const value = query[name];
  if (Array.isArray(value)) throw new BadRequestError(`Give ${name} once.`);
  return value === undefined || value === '' ? undefined : value;
};

function integer(query: Query, name: string, fallback: number, max: number): number {
  const raw = one(query, name);
  if (raw === undefined) return fallback;
  if (!/^\d{1,8}$/.test(raw) || Number(raw) > max) throw new BadRequestError(`${name} must be a whole number from 0 to ${max}.`);
  return Number(raw);
}

function date(query: Query, name: string, endOfDay: boolean): Date | undefined {
  const raw = one(query, name);
  if (raw === undefined) return undefined;
  const value = DATE.test(raw) ? new Date(raw.length === 10 ? `${raw}T00:00:00Z` : raw) : new Date(NaN);
  if (Number.isNaN(value.getTime())) throw new BadRequestError(`${name} must be a date (YYYY-MM-DD) or an RFC 3339 time.`);
  // A bare date as the upper bound includes that whole day.
  if (endOfDay && raw.length === 10) value.setUTCDate(value.getUTCDate() + 1);
  return value;
}

export function parseListFilter(query: Query, defaults: { limit: number } = { limit: MAX_LIST_LIMIT }): ListFilter {
  const limit = integer(query, 'limit', defaults.limit, MAX_LIST_LIMIT);
  const filter: ListFilter = { limit: Math.max(1, limit), offset: integer(query, 'offset', 0, MAX_LIST_OFFSET) };
  const kind = one(query, 'kind');
  const source = one(query, 'source');
  if (kind !== undefined) {
    const byKind = sourceOfKind(kind);
    if (!byKind) throw new BadRequestError('kind must be 0 (Dashboard), 1 (API) or 3 (Automated).');
    filter.source = byKind;
  }
  if (source !== undefined) {
    if (!isSendSource(source)) throw new BadRequestError(`source must be one of ${SEND_SOURCES.join(', ')}.`);
    if (filter.source && filter.source !== source) throw new BadRequestError('kind and source name different sources.');
    filter.source = source;
  }
  const status = one(query, 'status');
  if (status !== undefined) {
    if (!(LIST_STATUSES as readonly string[]).includes(status)) throw new BadRequestError(`status must be one of ${LIST_STATUSES.join(', ')}.`);
    filter.status = status as ListFilter['status'];
  }
  filter.from = date(query, 'from', false);
  filter.to = date(query, 'to', true);
  const timeOffset = one(query, 'time_offset');
  if (timeOffset !== undefined) {
    // OneSignal: time_offset pages instead of offset, never with it.
    if (query.offset !== undefined) throw new BadRequestError('time_offset cannot be used with offset: give one of them.');
    filter.timeOffset = parseTimeOffset(timeOffset);
  }
  const search = one(query, 'q')?.trim();
  if (search) {
    if (search.length > MAX_SEARCH_LENGTH) throw new BadRequestError(`q must be at most ${MAX_SEARCH_LENGTH} characters.`);
    assertStorableText(search, 'q');
    filter.search = search;
  }
  return filter;
}
