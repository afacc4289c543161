// The next batch of a destination: from its place in the app's records, the events of its kinds,
// up to `size`, and the place after them. An app's records take ids in commit order
// (core/events/record.ts), so none can appear behind a destination's place.
import { createHash } from 'node:crypto';
import type { Queryable } from '../store/db.js';
import { eventSlots, expandRecord, type HeraldEvent, type RecordRow } from './expand.js';
import { isEventKind, isNotificationEventKind, type EventKind } from './kinds.js';

/** Records up to `through` are delivered, and `offset` events of the next one. */
export interface Place {
  through: number;
  offset: number;
}

export interface Batch {
  events: HeraldEvent[];
  /** Where the destination is once this batch is accepted. */
  next: Place;
  /** Records in the range that cannot be expanded (a malformed body): passed over, for the caller to report. */
  poisoned: number[];
  /** The batch's webhook-id: the same for the same destination, range (start and end) and kinds: a
   *  retry of the same range. A range grown since the last attempt (more recorded behind a short
   *  batch) is another message: a receiver deduplicating on webhook-id would drop its new events. */
  webhookId: string;
}

/**
 * Records read in a batch's first round: a chunk record alone holds 500 to 1,000 events, so one or
 * two fill a batch. A destination whose kinds skip most events (only failures, say) reads one more
 * round of RECORDS_PER_READ; a batch still short then goes as it is (empty: its place moves on
 * without a request), so one batch never reads more than 52 records (~1 MB).
 */
const FIRST_READ = 2;
const RECORDS_PER_READ = 50;

export function batchId(appId: string, destination: string, from: Place, to: Place, kinds: readonly string[] | null): string {
  const h = createHash('sha256').update(`${appId}\n${destination}\n${from.through}.${from.offset}-${to.through}.${to.offset}\n${kinds?.join(',') ?? '*'}`).digest('base64url');
  return `msg_${h.slice(0, 27)}`;
}

/** Undefined: no record after the place (up to record `until`, a replay's last, when given). */
export async function nextBatch(db: Queryable, appId: string, destination: string, from: Place, kinds: readonly EventKind[] | null, size: number, until?: number): Promise<Batch | undefined> {
  const wanted = kinds ? new Set<string>(kinds) : undefined;
  // First pass, on the events' kinds and installs only: which events of which records make the
  // batch, and the place after them. Only those are then built, and only their installs looked up
  // (a batch is 500 events; a round may read 26,000).
  const picked: Array<{ row: RecordRow; start: number; end: number }> = [];
  const ids = new Set<string>();
  const poisoned: number[] = [];
  let taken = 0;
  let next: Place = from;
  let after = from.through;
  let read = false;
  rounds: for (let round = 0; round < 2 && taken < size; round++) {
    const limit = round === 0 ? FIRST_READ : RECORDS_PER_READ;
    const rows = await readRecords(db, appId, after, limit, until);
    read ||= rows.length > 0;
    for (const row of rows) {
      after = row.id;
      if (!isExpandable(row)) {
        // Never expandable, so never deliverable: passed over, or it would hold the destination forever.
        poisoned.push(row.id);
        next = { through: row.id, offset: 0 };
        continue;
      }
      // The offset is inside record through + 1 only: if retention took that record (past its age
      // cap), the next one is read whole.
      const start = row.id === from.through + 1 ? from.offset : 0;
      const slots = eventSlots(row);
      let at = start;
      const before = taken;
      for (; at < slots.length && taken < size; at++) {
        const { kind, subscriptionId } = slots[at];
        if (wanted && !wanted.has(kind)) continue;
        taken++;
        if (subscriptionId !== null) ids.add(subscriptionId);
      }
      if (taken > before) picked.push({ row, start, end: at });
      next = at >= slots.length ? { through: row.id, offset: 0 } : { through: row.id - 1, offset: at };
      if (at < slots.length) break rounds; // the batch is full inside this record
    }
    if (rows.length < limit) break; // no record after these
  }
  if (!read) return undefined;
  // The app's installs that exist now: an id not among them (erased since, whatever the records
  // say; or not this app's) goes out with no subscription and no user (expand.ts existingOnly).
  const external = ids.size
    ? await db.query<{ id: string; external_id: string | null; android: boolean }>(INSTALLS_LOOKUP, [appId, [...ids]])
    : { rows: [] };
  const installs = new Map(external.rows.map((r) => [r.id, r.external_id]));
  const android = new Set(external.rows.filter((r) => r.android).map((r) => r.id));
  const events = picked.flatMap(({ row, start, end }) =>
    expandRecord(row, installs, start, { existingOnly: true, to: end, android }).filter((e) => !wanted || wanted.has(e.event.kind)),
  );
  return { events, next, poisoned: poisoned.filter((id) => id <= next.through), webhookId: batchId(appId, destination, from, next, kinds) };
}

/** The installs of a batch's events, with each its platform: an Android install's events say so (issue 39 point 6). */
export const INSTALLS_LOOKUP = `SELECT id::text, external_id, platform = 'android' AS android FROM subscriptions WHERE app_id = $1 AND id = ANY($2::uuid[])`;

/** Up to `limit` of the app's records after id `after` (and up to `until` when given), in id order. */
async function readRecords(db: Queryable, appId: string, after: number, limit: number, until: number | undefined): Promise<RecordRow[]> {
  // bigint columns read as text: `::int` stops every destination once ids pass 2^31. A JavaScript
  // number holds them exactly up to 2^53, far past any identity this table will draw. The order is
  // the column's (r.id), not the text's: "100" sorts before "99".
  const res = await db.query<Omit<RecordRow, 'id' | 'sendId'> & { id: string; sendId: string | null }>(
    `SELECT r.id::text AS id, r.app_id AS "appId", r.send_id::text AS "sendId", r.kind, r.body, r.recorded_at AS "recordedAt"
       FROM event_records r WHERE r.app_id = $1 AND r.id > $2 AND ($4::bigint IS NULL OR r.id <= $4) ORDER BY r.id LIMIT $3`,
    [appId, after, limit, until ?? null],
  );
  return res.rows.map((r) => ({ ...r, id: Number(r.id), sendId: r.sendId === null ? null : Number(r.sendId) }));
}

/** Whether a record's body has the shape expand.ts reads (a row written by hand or by a bug may not). */
export function isExpandable(row: RecordRow): boolean {
  if (!Number.isSafeInteger(row.id) || !(row.recordedAt instanceof Date)) return false;
  const body = row.body as unknown;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const b = body as Partial<Record<'s' | 'f' | 'u' | 'd', unknown>>;
  const list = (v: unknown, ok: (e: unknown) => boolean) => Array.isArray(v) && v.every(ok);
  const id = (e: unknown) => e === null || typeof e === 'string';
  if (row.kind === 'device_events') {
    const data = (e: unknown) => typeof e === 'object' && e !== null && !Array.isArray(e);
    return list(b.d, (e) => Array.isArray(e) && isEventKind(e[0]) && !isNotificationEventKind(e[0]) && id(e[1]) && data(e[2]));
  }
  if (row.kind !== 'chunk') return isEventKind(row.kind) && isNotificationEventKind(row.kind);
  return list(b.s, id) && list(b.f, (e) => Array.isArray(e) && id(e[0])) && list(b.u, (e) => Array.isArray(e) && id(e[0]));
}
