// A send as the list call, the stats call and the dashboard show it: the stats counters plus what
// the send was (contents, headings, source) and when (queued, scheduled, completed, cancelled).
// OneSignal's NotificationWithMeta names and units: times are Unix seconds, `canceled` a boolean.
import type { Queryable } from '../store/db.js';
import { toStats, type SendCountsRow, type SendStats } from './stats.js';
import type { SendStatus } from '../send-model/states.js';
import type { SendSource } from '../formats/send-source.js';
import { requestJsonSql as json, requestTextSql as text } from '../send-model/request.js';
import { OFFSET_TIME, OFFSET_TIME_TEXT, timeOffsetToken, type TimeOffset } from './time-offset.js';
/**
 * The sends the list, stats and cancel calls know: notifications and Live Activity pushes. An
 * in-app card is not one of them (the contract: its id is a 404).
 */
export const LISTED_KINDS_SQL = `kind IN ('push', 'live_activity')`;

export interface NotificationRow extends SendCountsRow {
  source: SendSource;
  contents: Record<string, string> | null;
  headings: Record<string, string> | null;
  name: string | null;
  custom_data: Record<string, unknown> | null;
  message: string;
  throttle_per_min: number | null;
  send_after: Date | null;
  created_at: Date;
  finished_at: Date | null;
  canceled_at: Date | null;
  la_event: string | null;
  la_activity: string | null;
  la_type: string | null;
  la_channel: LiveActivityChannelReport | null;
}

/** What a Live Activity push was (absent from a notification's report). */
export interface LiveActivityReport {
  event: 'start' | 'update' | 'end';
  activity_id: string;
  activity_type?: string;
  /**
   * An update or end that went to the activity's broadcast channel: Apple accepted the one request,
   * or it failed (`reason`) and only the tokens were sent. Absent: no channel, per token only. The
   * tokens' part is the send's own counters (total_recipients, sent, failed).
   */
  broadcast?: LiveActivityChannelReport;
}

/** migration 049's sends.la_channel (core/live-activities/broadcast-outcome.ts). */
export interface LiveActivityChannelReport {
  status: 'accepted' | 'failed';
  reason?: string;
}

export interface NotificationReport extends SendStats {
  app_id: string;
  contents: Record<string, string>;
  headings: Record<string, string>;
  /** The body's `name` and `custom_data` when it had them: kept with the send, never sent to devices. */
  name?: string;
  custom_data?: Record<string, unknown>;
  source: SendSource;
  message: string;
  queued_at: number;
  send_after: number;
  completed_at: number | null;
  throttle_rate_per_minute: number | null;
  canceled: boolean;
  live_activity?: LiveActivityReport;
}

/** The columns toNotification reads, for every query that feeds it. */
// Only these parts of the request: a list send's request holds up to 500 ids, not read here.
export const NOTIFICATION_COLUMNS = `id, app_id, status, total_recipients, sent, failed, skipped, left_out, clicked,
  sent_android, failed_android, clicked_android, source,
  ${json('request', 'contents')} AS contents, ${json('request', 'headings')} AS headings, ${text('request', 'name')} AS name,
  ${json('request', 'customData')} AS custom_data, message, throttle_per_min, send_after, created_at,
  finished_at, canceled_at, ${text('request', 'liveActivity', 'event')} AS la_event,
  ${text('request', 'liveActivity', 'activityId')} AS la_activity, ${text('request', 'liveActivity', 'activityType')} AS la_type, la_channel`;

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

export function toNotification(row: NotificationRow): NotificationReport {
  return {
    ...toStats(row),
    id: Number(row.id),
    app_id: row.app_id,
    contents: row.contents ?? {},
    headings: row.headings ?? {},
    ...(row.name !== null ? { name: row.name } : {}),
    ...(row.custom_data !== null ? { custom_data: row.custom_data } : {}),
    source: row.source,
    message: row.message,
    queued_at: seconds(row.created_at),
    send_after: seconds(row.send_after ?? row.created_at),
    completed_at: row.finished_at ? seconds(row.finished_at) : null,
    throttle_rate_per_minute: row.throttle_per_min,
    canceled: row.canceled_at !== null,
    ...(row.la_event !== null ? { live_activity: liveActivityOf(row) } : {}),
  };
}

function liveActivityOf(row: NotificationRow): LiveActivityReport {
  const report: LiveActivityReport = { event: row.la_event as LiveActivityReport['event'], activity_id: row.la_activity ?? '' };
  if (row.la_type !== null) report.activity_type = row.la_type;
  if (row.la_channel) report.broadcast = row.la_channel.reason === undefined ? { status: row.la_channel.status } : { status: row.la_channel.status, reason: row.la_channel.reason };
  return report;
}

/** The text a list shows for a send: its default language's content. */
export function defaultContent(report: Pick<NotificationReport, 'contents'>): string {
  const c = report.contents;
  return c.en ?? Object.values(c)[0] ?? '';
}

export async function readNotification(db: Queryable, appId: string, id: number): Promise<NotificationReport | undefined> {
  const res = await db.query<NotificationRow>({
    name: 'herald-read-notification', // prepared once per connection (the stats call is hot)
    text: `SELECT ${NOTIFICATION_COLUMNS} FROM sends WHERE id = $1 AND app_id = $2 AND ${LISTED_KINDS_SQL}`,
    values: [id, appId],
  });
  return res.rows[0] ? toNotification(res.rows[0]) : undefined;
}

export const MAX_LIST_LIMIT = 50; // OneSignal's own cap on a page
export const MAX_LIST_OFFSET = 1_000_000;
export const MAX_SEARCH_LENGTH = 200;
/** With `q`, total_count counts up to this many matches; this value means "this many or more". */
export const MAX_SEARCH_COUNT = 10_000;

export interface ListFilter {
  limit: number;
  offset: number;
  source?: SendSource;
  /** A status, or `canceled` for cancelled sends whatever their status. */
  status?: SendStatus | 'canceled';
  /** Sends created at or after / before these instants. */
  from?: Date;
  to?: Date;
  /** Matched against the id and the contents and headings in every language, case-insensitively. */
  search?: string;
  /** OneSignal's time_offset (list-query.ts): the page after this place, oldest first, instead of `offset`. */
  timeOffset?: TimeOffset;
}

export interface NotificationPage {
  total_count: number;
  offset: number;
  limit: number;
  /** With time_offset: it as given, and the token of the page after this one (the same when this one is empty). */
  time_offset?: string;
  next_time_offset?: string;
  notifications: NotificationReport[];
}

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One app's sends, newest first (OneSignal's list call). Bounded by the caller's checked filter; total_count -1 when not counted. */
export async function listNotifications(db: Queryable, appId: string, filter: ListFilter, opts: { count?: boolean } = {}): Promise<NotificationPage> {
  const where = [`app_id = $1`, LISTED_KINDS_SQL];
  const values: unknown[] = [appId];
  const add = (sql: (p: string) => string, value: unknown) => {
    values.push(value);
    where.push(sql(`$${values.length}`));
  };
  if (filter.source) add((p) => `source = ${p}`, filter.source);
  if (filter.status === 'canceled') where.push('canceled_at IS NOT NULL');
  else if (filter.status) add((p) => `status = ${p}`, filter.status);
  if (filter.from) add((p) => `created_at >= ${p}`, filter.from);
  if (filter.to) add((p) => `created_at < ${p}`, filter.to);
  if (filter.search) {
    const id = /^\d{1,15}$/.test(filter.search) ? Number(filter.search) : null;
    // search_text holds the texts, headings and name only (migration 015), under a trigram index.
    add((p) => `(search_text ILIKE ${p}${id === null ? '' : ` OR id = ${id}`})`, likePattern(filter.search));
  }
  const clause = where.join(' AND ');
  // The total is one more scan of the app's matching sends; an export paging through skips it. A
  // search counts at most MAX_SEARCH_COUNT matches: a word in every send would otherwise recheck
  // every row of the app on each call (docs/decisions.md "The list call's search").
  const counted = filter.search ? `(SELECT 1 FROM sends WHERE ${clause} LIMIT ${MAX_SEARCH_COUNT}) matches` : `sends WHERE ${clause}`;
  const count = opts.count === false ? undefined : await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${counted}`, values);
  const total = count ? count.rows[0].n : -1;
  if (filter.timeOffset) return { total_count: total, ...(await pageAfter(db, clause, values, filter.limit, filter.timeOffset)) };
  const rows = await db.query<NotificationRow>(
    `SELECT ${NOTIFICATION_COLUMNS} FROM sends WHERE ${clause} ORDER BY id DESC LIMIT ${filter.limit} OFFSET ${filter.offset}`,
    values,
  );
  return { total_count: total, offset: filter.offset, limit: filter.limit, notifications: rows.rows.map(toNotification) };
}

/** A time_offset page: the sends after the place, oldest first (index sends_app_time_offset). */
async function pageAfter(db: Queryable, clause: string, values: unknown[], limit: number, place: TimeOffset): Promise<Omit<NotificationPage, 'total_count'>> {
  const after = place.id === undefined
    ? `${OFFSET_TIME} > $${values.length + 1}::timestamptz`
    : `(${OFFSET_TIME}, id) > ($${values.length + 1}::timestamptz, $${values.length + 2}::bigint)`;
  const rows = await db.query<NotificationRow & { offset_at: string }>(
    `SELECT ${NOTIFICATION_COLUMNS}, ${OFFSET_TIME_TEXT} AS offset_at
       FROM sends WHERE ${clause} AND ${after} ORDER BY ${OFFSET_TIME}, id LIMIT ${limit}`,
    [...values, place.at, ...(place.id === undefined ? [] : [place.id])],
  );
  const last = rows.rows.at(-1);
  return {
    offset: 0,
    limit,
    time_offset: place.given,
    next_time_offset: last ? timeOffsetToken(last.offset_at, Number(last.id)) : place.given,
    notifications: rows.rows.map(toNotification),
  };
}

export interface DeliveryPoint {
  /** Unix seconds of the second the chunks finished in. */
  at: number;
  sent: number;
  failed: number;
}

/** Delivery over time from the chunks' finish times, per second (at most 600 points: the last ones). */
export async function deliveryTimeline(db: Queryable, sendId: number): Promise<DeliveryPoint[]> {
  const res = await db.query<{ at: number; sent: number; failed: number }>(
    `SELECT * FROM (
       SELECT extract(epoch FROM date_trunc('second', finished_at))::bigint AS at, sum(sent)::int AS sent, sum(failed)::int AS failed
         FROM send_chunks WHERE send_id = $1 AND state = 'done' AND finished_at IS NOT NULL
        GROUP BY 1 ORDER BY 1 DESC LIMIT 600) t ORDER BY at`,
    [sendId],
  );
  return res.rows.map((r) => ({ at: Number(r.at), sent: r.sent, failed: r.failed }));
}
