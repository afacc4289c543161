// OneSignal's time_offset for the list call (issue 30 point 5; docs/api.md "GET /notifications"):
// the app's sends oldest first by the time OneSignal reports as `send_after` (the scheduled time,
// else when it was accepted), then id, page after page from a cursor, instead of `offset`. The
// first page starts at an ISO 8601 time (sends at exactly that instant are passed over, as
// OneSignal's); each page answers next_time_offset, the place after its last send, to give back.
import { BadRequestError } from '../errors.js';

/**
 * A place in the order: after an instant, or after a send (its time, to the microsecond, and its
 * id). `given` is the parameter as it came.
 */
export interface TimeOffset {
  at: string;
  id?: number;
  given: string;
}

/** The order of time_offset pages (and of migration 051's index, sends_app_time_offset). */
export const OFFSET_TIME = 'coalesce(send_after, created_at)';
/** That time as a token holds it: UTC to the microsecond, so no two sends of one millisecond are passed over. */
export const OFFSET_TIME_TEXT = `to_char(${OFFSET_TIME} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The longest time_offset read: a token is ~48 characters, an ISO time ~29. */
export const MAX_TIME_OFFSET_LENGTH = 100;
export const TIME_OFFSET_HELP = 'time_offset must be an ISO 8601 time (2025-01-01T00:00:00.000Z) or the next_time_offset of a page.';

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?)?$/;
/** A token decoded: the time as OFFSET_TIME_TEXT writes it, then the send id. */
const TOKEN = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)#(\d{1,15})$/;

/** Whether the date and clock of an ISO time exist (Date would roll 02-30 over to March; PostgreSQL refuses it). */
function realTime(raw: string): boolean {
  const [y, mo, d, h = 0, mi = 0, sec = 0] = (raw.match(/\d+/g) ?? []).slice(0, 6).map(Number);
  const day = new Date(Date.UTC(y, mo - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d && h < 24 && mi < 60 && sec < 60;
}

/** next_time_offset: the place after a send, as an opaque token (base64url of "<time>#<id>"). */
export function timeOffsetToken(at: string, id: number): string {
  return Buffer.from(`${at}#${id}`, 'utf8').toString('base64url');
}

/** time_offset as given: an ISO 8601 time, or a next_time_offset; else a 400 naming it. */
export function parseTimeOffset(raw: string): TimeOffset {
  if (raw.length > MAX_TIME_OFFSET_LENGTH) throw new BadRequestError(TIME_OFFSET_HELP);
  if (ISO.test(raw)) {
    // Read by PostgreSQL as given (to the microsecond; JavaScript's Date keeps milliseconds), UTC
    // when it names no zone; Date only checks that it is a real time.
    const at = raw.length === 10 ? `${raw}T00:00:00Z` : /(Z|[+-]\d{2}:\d{2})$/.test(raw) ? raw : `${raw}Z`;
    if (realTime(raw)) return { at, given: raw };
  }
  const token = /^[A-Za-z0-9_-]{1,100}$/.test(raw) ? TOKEN.exec(Buffer.from(raw, 'base64url').toString('utf8')) : null;
  if (!token || Number.isNaN(new Date(token[1]).getTime())) throw new BadRequestError(TIME_OFFSET_HELP);
  return { at: token[1], id: Number(token[2]), given: raw };
}
