// What the dashboard's events page reads (issue 28 point 5): an app's destinations with their
// health (core/events/health.ts: the one rule for delivering / retrying / failing and the backlog,
// as the App condition and the metrics read it), and the app's latest events, its latest records
// expanded as a destination receives them (core/events/expand.ts). Read only; every query is one
// app's, and a signing secret is never read.
import type { Queryable } from '../store/db.js';
import { expandRecord, subscriptionIdsOf, type HeraldEvent, type RecordRow } from '../events/expand.js';
import { isExpandable } from '../events/batch.js';
import { appDestinationHealth, type DestinationHealth } from '../events/health.js';

export interface DestinationView extends DestinationHealth {
  url: string;
  /** null: every kind. */
  kinds: string[] | null;
  /** Its place: records up to `deliveredThrough` delivered, and `deliveredOffset` events of the next. */
  deliveredThrough: number;
  deliveredOffset: number;
}

export async function appDestinations(db: Queryable, appId: string): Promise<DestinationView[]> {
  const [health, rows] = await Promise.all([
    appDestinationHealth(db, appId),
    db.query<{ name: string; url: string; kinds: string[] | null; through: string; offset: number }>(
      'SELECT name, url, kinds, delivered_through::text AS through, delivered_offset AS offset FROM event_destinations WHERE app_id = $1',
      [appId],
    ),
  ]);
  const byName = new Map(rows.rows.map((r) => [r.name, r]));
  return health.flatMap((h) => {
    const r = byName.get(h.name);
    return r ? [{ ...h, url: r.url, kinds: r.kinds, deliveredThrough: Number(r.through), deliveredOffset: r.offset }] : [];
  });
}

/** Events a page of the latest events shows. */
export const EVENTS_PAGE = 50;
/** A place in the app's events, newest first: the record `before` and older, `skip` events of it already shown. */
export interface EventCursor {
  before: number;
  skip: number;
}

/** A page of the app's latest events (newest record first, a record's events in their order) and where the next begins. */
export async function latestEvents(db: Queryable, appId: string, from?: EventCursor): Promise<{ events: HeraldEvent[]; next?: EventCursor }> {
  // Every record holds at least one event, so EVENTS_PAGE records fill a page.
  const res = await db.query<Omit<RecordRow, 'id' | 'sendId'> & { id: string; sendId: string | null }>(
    `SELECT r.id::text AS id, r.app_id AS "appId", r.send_id::text AS "sendId", r.kind, r.body, r.recorded_at AS "recordedAt"
       FROM event_records r WHERE r.app_id = $1 AND ($2::bigint IS NULL OR r.id <= $2) ORDER BY r.id DESC LIMIT $3`,
    [appId, from?.before ?? null, EVENTS_PAGE],
  );
  const rows: RecordRow[] = res.rows
    .map((r) => ({ ...r, id: Number(r.id), sendId: r.sendId === null ? null : Number(r.sendId) }))
    .filter(isExpandable);
  const ids = [...new Set(rows.flatMap(subscriptionIdsOf))];
  const external = ids.length
    ? await db.query<{ id: string; external_id: string | null }>('SELECT id::text, external_id FROM subscriptions WHERE app_id = $1 AND id = ANY($2::uuid[])', [appId, ids])
    : { rows: [] };
  const externalIds = new Map(external.rows.map((r) => [r.id, r.external_id]));
  const events: HeraldEvent[] = [];
  for (const row of rows) {
    const skip = row.id === from?.before ? from.skip : 0;
    const all = expandRecord(row, externalIds, skip);
    const room = EVENTS_PAGE - events.length;
    events.push(...all.slice(0, room));
    if (all.length > room) return { events, next: { before: row.id, skip: skip + room } };
  }
  const last = res.rows.at(-1);
  return { events, next: res.rows.length === EVENTS_PAGE && last ? { before: Number(last.id) - 1, skip: 0 } : undefined };
}
