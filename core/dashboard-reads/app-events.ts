// What the dashboard's events page reads (issue 28 point 5): an app's destinations with their
// health (core/events/health.ts: the one rule for delivering / retrying / failing and the backlog,
// as the App condition and the metrics read it), and the app's latest events, its latest records
// expanded as a destination receives them (core/events/expand.ts). Read only; every query is one
// app's, and a signing secret is never read.
import type { Queryable } from '../store/db.js';
import { expandRecord, subscriptionIdsOf, type HeraldEvent, type RecordRow } from '../events/expand.js';
import { INSTALLS_LOOKUP, isExpandable } from '../events/batch.js';
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

/** Records read in a page's first round: a chunk's record alone holds up to 500 devices' events (~20 kB). */
const FIRST_ROUND = 5;

type StoredRow = Omit<RecordRow, 'id' | 'sendId'> & { id: string; sendId: string | null };

/**
 * A page of the app's latest events (newest record first, a record's events in their order) and
 * where the next begins. Records are read in rounds, a few first, so a page of a chunk's events
 * reads that chunk's record and not 49 more; every record holds at least one event, so a round of
 * (events still wanted) records always fills the page.
 */
export async function latestEvents(db: Queryable, appId: string, from?: EventCursor): Promise<{ events: HeraldEvent[]; next?: EventCursor }> {
  const events: HeraldEvent[] = [];
  let before = from?.before ?? null;
  for (let round = 0; ; round++) {
    const limit = round === 0 ? FIRST_ROUND : EVENTS_PAGE - events.length;
    // One record more than the round reads (its id only): whether an older one exists, so a page
    // that ends at the app's oldest record offers no "Older events" leading to an empty page.
    const res = await db.query<StoredRow>(
      `SELECT r.id::text AS id, r.app_id AS "appId", r.send_id::text AS "sendId", r.kind, CASE WHEN n <= $3 THEN r.body END AS body, r.recorded_at AS "recordedAt"
         FROM (SELECT r.*, row_number() OVER (ORDER BY r.id DESC) AS n FROM (SELECT * FROM event_records r WHERE r.app_id = $1 AND ($2::bigint IS NULL OR r.id <= $2) ORDER BY r.id DESC LIMIT $3 + 1) r) r
        ORDER BY r.id DESC`,
      [appId, before, limit],
    );
    const older = res.rows.length > limit;
    const rows: RecordRow[] = res.rows.slice(0, limit).map((r) => ({ ...r, id: Number(r.id), sendId: r.sendId === null ? null : Number(r.sendId) }));
    const { externalIds, android } = await installsOf(db, appId, rows.filter(isExpandable));
    for (const row of rows) {
      // A record that cannot be expanded (written by hand or by a bug) is passed over, as the dispatcher does.
      if (!isExpandable(row)) continue;
      const skip = row.id === from?.before ? from.skip : 0;
      const all = expandRecord(row, externalIds, skip, { android });
      const room = EVENTS_PAGE - events.length;
      events.push(...all.slice(0, room));
      if (all.length > room) return { events, next: { before: row.id, skip: skip + room } };
    }
    if (!older) return { events }; // no older record
    before = rows[rows.length - 1].id - 1;
    if (events.length === EVENTS_PAGE) return { events, next: { before, skip: 0 } };
  }
}

/**
 * The external ids of the installs these records name, this app's only (an install erased since has
 * none), and those on Android (their events say so, as the dispatcher's do).
 */
async function installsOf(db: Queryable, appId: string, rows: RecordRow[]): Promise<{ externalIds: Map<string, string | null>; android: Set<string> }> {
  const ids = [...new Set(rows.flatMap(subscriptionIdsOf))];
  if (!ids.length) return { externalIds: new Map(), android: new Set() };
  const res = await db.query<{ id: string; external_id: string | null; android: boolean }>(INSTALLS_LOOKUP, [appId, ids]);
  return { externalIds: new Map(res.rows.map((r) => [r.id, r.external_id])), android: new Set(res.rows.filter((r) => r.android).map((r) => r.id)) };
}
