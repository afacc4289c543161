// The next batch of a destination: from its place in the app's records, the events of its kinds,
// up to `size`, and the place after them. An app's records take ids in commit order
// (core/events/record.ts), so none can appear behind a destination's place.
import { createHash } from 'node:crypto';
import type { Queryable } from '../store/db.js';
import { eventCount, expandRecord, subscriptionIdsOf, type HeraldEvent, type RecordRow } from './expand.js';
import type { EventKind } from './kinds.js';

/** Records up to `through` are delivered, and `offset` events of the next one. */
export interface Place {
  through: number;
  offset: number;
}

export interface Batch {
  events: HeraldEvent[];
  /** Where the destination is once this batch is accepted. */
  next: Place;
  /** The batch's webhook-id: the same for the same destination, range (start and end) and kinds: a
   *  retry of the same range. A range grown since the last attempt (more recorded behind a short
   *  batch) is another message: a receiver deduplicating on webhook-id would drop its new events. */
  webhookId: string;
}

/** Records read per round: a chunk record alone holds 500 to 1,000 events. */
const RECORDS_PER_READ = 50;

export function batchId(appId: string, destination: string, from: Place, to: Place, kinds: readonly string[] | null): string {
  const h = createHash('sha256').update(`${appId}\n${destination}\n${from.through}.${from.offset}-${to.through}.${to.offset}\n${kinds?.join(',') ?? '*'}`).digest('base64url');
  return `msg_${h.slice(0, 27)}`;
}

/** Undefined: no record after the place. */
export async function nextBatch(db: Queryable, appId: string, destination: string, from: Place, kinds: readonly EventKind[] | null, size: number): Promise<Batch | undefined> {
  const res = await db.query<RecordRow>(
    `SELECT id::int, app_id AS "appId", send_id::int AS "sendId", kind, body, recorded_at AS "recordedAt"
       FROM event_records WHERE app_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
    [appId, from.through, RECORDS_PER_READ],
  );
  if (!res.rows.length) return undefined;
  const ids = [...new Set(res.rows.flatMap(subscriptionIdsOf))];
  const external = ids.length
    ? await db.query<{ id: string; external_id: string | null }>('SELECT id::text, external_id FROM subscriptions WHERE id = ANY($1::uuid[])', [ids])
    : { rows: [] };
  const externalIds = new Map(external.rows.map((r) => [r.id, r.external_id]));
  const wanted = kinds ? new Set<string>(kinds) : undefined;
  const events: HeraldEvent[] = [];
  let next: Place = from;
  for (const [i, row] of res.rows.entries()) {
    const start = i === 0 ? from.offset : 0;
    const total = eventCount(row);
    let at = start;
    for (const event of expandRecord(row, externalIds, start)) {
      if (events.length >= size) break;
      if (!wanted || wanted.has(event.event.kind)) events.push(event);
      at++;
    }
    next = at >= total ? { through: row.id, offset: 0 } : { through: row.id - 1, offset: at };
    if (at < total) break; // the batch is full inside this record
  }
  return { events, next, webhookId: batchId(appId, destination, from, next, kinds) };
}
