// `delayed_option: timezone` delivery (DECISIONS "Time"; docs/delivery.md "Scheduled sends").
//
// When a timezone send fires (core/send/fire-due.ts, at send_after, or at once when only
// delivery_time_of_day was given), its audience is planned in the firing transaction like any
// send, but in chunks grouped by device time zone: each chunk records the zone (the devices'
// `timezone` value as stored; NULL = no zone) and `not_before`, the first instant not before the
// send's start at which that zone's clock shows the time of day (an unknown or invalid zone uses
// the send's fallback offset). Offsets are computed in JS once per distinct zone.
//
// A chunk with a `not_before` is claimable only once released. `releaseDueChunks` (a duty of the
// scheduler leader, core/send/scheduler.ts) marks each chunk whose `not_before` has passed
// released and wakes the senders. From there a chunk is claimed, delivered and recorded like any
// other (claim.ts, chunks.ts); the send stays `scheduled` until the transaction that records its
// last chunk finishes it `approved` or `draft` (finish.ts). No throttle for these sends.
import type { Pool, Queryable } from '../store/db.js';
import { inTransaction } from '../store/db.js';
import type { Bus } from '../bus/jetstream.js';
import type { AppRecord } from '../apps/app-store.js';
import { audienceCondition, narrowing, Params } from '../audience/filter.js';
import { aliasInstalls } from '../audience/alias-target.js';
import type { SendRequest } from '../send-model/request.js';
import { nextClockTime, zoneSpecFor } from '../time/zone-clock.js';
import { CHUNK_SIZE } from './planner.js';
import { wakeSenders } from './wake.js';
import { isListTarget } from '../audience/target-kinds.js';

export interface ZoneChunk {
  chunk: number;
  timezone: string | null;
  notBefore: Date;
  fromSeq: number | null;
  toSeq: number | null;
  planned: number;
  /** List sends: the given ids this chunk counts for. */
  entries: string[] | null;
}

/** When a zone's devices get the send: the first moment not before `from` its clock shows the time. */
export function zoneMoment(timezone: string | null, delivery: NonNullable<SendRequest['timezoneDelivery']>, from: Date): Date {
  return nextClockTime(zoneSpecFor(timezone, delivery.fallbackOffsetMinutes), delivery.timeOfDay, from);
}

interface ZoneGroup {
  timezone: string | null;
  notBefore: Date;
  parts: Array<Omit<ZoneChunk, 'chunk' | 'timezone' | 'notBefore'>>;
}

/** Segment and tag audiences: per zone, every CHUNK_SIZE-th seq and the last one (one query). */
async function segmentGroups(db: Queryable, app: AppRecord, req: SendRequest, maxSeq: number, cap: number, size: number) {
  const params = new Params([app.id, maxSeq, cap, size]);
  const condition = audienceCondition(app, req.target, params);
  const res = await db.query<{ timezone: string | null; seq: string; rn: string }>(
    `WITH a AS (SELECT seq, timezone FROM subscriptions s WHERE s.app_id = $1 AND s.subscribed AND s.seq <= $2 AND ${condition}
                 ORDER BY seq LIMIT $3),
          n AS (SELECT seq, timezone, row_number() OVER (PARTITION BY timezone ORDER BY seq) AS rn,
                       count(*) OVER (PARTITION BY timezone) AS cnt FROM a)
     SELECT timezone, seq, rn FROM n WHERE rn % $4 = 0 OR rn = cnt ORDER BY timezone NULLS FIRST, rn`,
    params.values,
  );
  const groups = new Map<string | null, ZoneGroup['parts']>();
  const last = new Map<string | null, { seq: number; rn: number }>();
  for (const row of res.rows) {
    const prev = last.get(row.timezone) ?? { seq: 0, rn: 0 };
    const seq = Number(row.seq);
    const rn = Number(row.rn);
    if (!groups.has(row.timezone)) groups.set(row.timezone, []);
    groups.get(row.timezone)!.push({ fromSeq: prev.seq, toSeq: seq, planned: rn - prev.rn, entries: null });
    last.set(row.timezone, { seq, rn });
  }
  return groups;
}

/** An include_aliases send: each id with the zone of its users' first install the send goes to. */
function aliasZones(db: Queryable, app: AppRecord, target: Extract<SendRequest['target'], { kind: 'aliases' }>, key: string) {
  const params = new Params([app.id]);
  const members = aliasInstalls(target.label, target.ids, params);
  const narrowed = narrowing(app, target, params);
  return db.query<{ entry: string; timezone: string | null }>(
    `SELECT DISTINCT ON (entry) entry, timezone FROM (
       SELECT ${members.entry} AS entry, ${key} AS timezone, s.seq FROM subscriptions s ${members.join}
        WHERE s.app_id = $1 AND s.subscribed AND ${members.where}${narrowed}) m ORDER BY entry, seq`,
    params.values,
  );
}

/**
 * List sends: each given id goes with the zone of its first subscribed install the send goes to
 * (none: no zone). Narrowed as the chunk's devices are (chunks.ts): an install left out (an
 * excluded segment, no token of a VoIP, location, … send's type) does not choose the moment.
 * `key`: what groups them, a column of install `s` (its zone; a last-active send's hour, last-active.ts).
 */
export async function listGroups(db: Queryable, app: AppRecord, req: SendRequest, size: number, key = 's.timezone') {
  const target = req.target;
  const groups = new Map<string | null, ZoneGroup['parts']>();
  if (!isListTarget(target)) return groups;
  const byId = target.kind === 'subscription_ids';
  const entries = byId ? target.ids.map((id) => id.toLowerCase()) : target.ids;
  const params = new Params([app.id, entries]);
  const narrowed = target.kind === 'aliases' ? '' : narrowing(app, target, params);
  const res = target.kind === 'aliases' ? await aliasZones(db, app, target, key) : await db.query<{ entry: string; timezone: string | null }>(
    byId
      ? `SELECT DISTINCT ON (s.id) s.id::text AS entry, ${key} AS timezone FROM subscriptions s
          WHERE s.app_id = $1 AND s.subscribed AND s.id::text = ANY($2::text[])${narrowed} ORDER BY s.id, s.seq`
      : `SELECT DISTINCT ON (s.external_id) s.external_id AS entry, ${key} AS timezone FROM subscriptions s
          WHERE s.app_id = $1 AND s.subscribed AND s.external_id = ANY($2::text[])${narrowed} ORDER BY s.external_id, s.seq`,
    params.values,
  );
  const zoneOf = new Map(res.rows.map((r) => [r.entry, r.timezone]));
  const byZone = new Map<string | null, string[]>();
  for (const entry of entries) {
    const zone = zoneOf.get(entry) ?? null;
    if (!byZone.has(zone)) byZone.set(zone, []);
    byZone.get(zone)!.push(entry);
  }
  for (const [zone, list] of byZone) {
    const parts: ZoneGroup['parts'] = [];
    for (let i = 0; i < list.length; i += size) {
      const slice = list.slice(i, i + size);
      parts.push({ fromSeq: null, toSeq: null, planned: slice.length, entries: slice });
    }
    groups.set(zone, parts);
  }
  return groups;
}

/**
 * The chunks of a timezone send, numbered in the order they go out (by `not_before`, then zone).
 * `from`: the send's start (send_after, or when it was accepted); `cap`: total_recipients.
 */
export async function timezoneChunks(
  db: Queryable,
  app: AppRecord,
  req: SendRequest,
  opts: { maxSeq: number; cap: number; from: Date; size?: number },
): Promise<ZoneChunk[]> {
  const delivery = req.timezoneDelivery;
  if (!delivery) throw new Error('not a timezone send');
  const size = opts.size ?? CHUNK_SIZE;
  const isList = isListTarget(req.target);
  if (!isList && opts.cap <= 0) return [];
  const raw = isList ? await listGroups(db, app, req, size) : await segmentGroups(db, app, req, opts.maxSeq, opts.cap, size);
  const groups: ZoneGroup[] = [...raw].map(([timezone, parts]) => ({ timezone, parts, notBefore: zoneMoment(timezone, delivery, opts.from) }));
  groups.sort((a, b) => a.notBefore.getTime() - b.notBefore.getTime() || (a.timezone ?? '').localeCompare(b.timezone ?? ''));
  const chunks: ZoneChunk[] = [];
  for (const g of groups) {
    for (const p of g.parts) chunks.push({ chunk: chunks.length, timezone: g.timezone, notBefore: g.notBefore, ...p });
  }
  return chunks;
}

/**
 * Records the zone chunks and chunks_total of a timezone send, inside the firing transaction.
 * `byZone` false: chunks whose devices are their entries whatever their zone (a last-active list send).
 */
export async function recordTimezonePlan(db: Queryable, sendId: number, chunks: ZoneChunk[], opts: { byZone?: boolean } = {}): Promise<void> {
  if (chunks.length) {
    await db.query(
      `INSERT INTO send_chunks (send_id, chunk, from_seq, to_seq, planned, by_zone, timezone, not_before, entries)
       SELECT $1, c, f, t, p, $9, z, nb, CASE WHEN jsonb_typeof(e) = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(e)) END
         FROM unnest($2::int[], $3::bigint[], $4::bigint[], $5::int[], $6::text[], $7::timestamptz[], $8::jsonb[]) AS u(c, f, t, p, z, nb, e)
       ON CONFLICT DO NOTHING`,
      [
        sendId,
        chunks.map((c) => c.chunk),
        chunks.map((c) => c.fromSeq),
        chunks.map((c) => c.toSeq),
        chunks.map((c) => c.planned),
        chunks.map((c) => c.timezone),
        chunks.map((c) => c.notBefore.toISOString()),
        chunks.map((c) => JSON.stringify(c.entries)),
        opts.byZone ?? true,
      ],
    );
  }
  await db.query('UPDATE sends SET chunks_total = $2, updated_at = now() WHERE id = $1', [sendId, chunks.length]);
}

export interface ReleasedChunk {
  sendId: number;
  chunk: number;
  timezone: string | null;
  notBefore: Date;
}

/**
 * Releases the waiting chunks whose `not_before` has passed (by `now`, default the database
 * clock) and wakes the senders. Safe with several callers at once (SKIP LOCKED).
 */
export async function releaseDueChunks(deps: { pool: Pool; bus?: Bus; now?: Date }, opts: { limit?: number } = {}): Promise<ReleasedChunk[]> {
  const released = await inTransaction(deps.pool, async (db) => {
    const due = await db.query<{ send_id: string; chunk: number; timezone: string | null; not_before: Date }>(
      `SELECT k.send_id, k.chunk, k.timezone, k.not_before FROM send_chunks k
        WHERE k.released_at IS NULL AND k.not_before IS NOT NULL AND k.state = 'planned'
          AND k.not_before <= coalesce($1::timestamptz, now())
        ORDER BY k.not_before, k.send_id, k.chunk
        LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [deps.now ?? null, opts.limit ?? 500],
    );
    const released = due.rows.map((r) => ({ sendId: Number(r.send_id), chunk: r.chunk, timezone: r.timezone, notBefore: r.not_before }));
    if (released.length) {
      await db.query(
        `UPDATE send_chunks k SET released_at = now() FROM unnest($1::bigint[], $2::int[]) AS u(s, c)
          WHERE k.send_id = u.s AND k.chunk = u.c`,
        [released.map((r) => r.sendId), released.map((r) => r.chunk)],
      );
    }
    return released;
  });
  if (released.length) wakeSenders(deps.bus);
  return released;
}
