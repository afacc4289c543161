// `delayed_option: last-active` delivery (issue 38 point 4; docs/decisions.md "Last-active
// delivery"): OneSignal's intelligent delivery. Planned when the send fires (core/send/fire-due.ts),
// in the firing transaction, as a timezone send is (timezone.ts), but grouped by the hour of the day
// (UTC) of each install's last_active: 24 groups, and one for installs never active, which go at
// the start. Each group's chunks wait for their `not_before` (releaseDueChunks releases them) and
// the send stays `scheduled` until its last chunk is recorded, as a timezone send does.
//
// Unlike a zone, last_active moves: the SDK reports a session every time the app opens. A chunk
// that read "installs active at hour h" when it is loaded would miss an install that opened the
// app since the plan (and count it nowhere) or reach it twice. So each chunk records who it holds
// at planning: the seqs of its installs (a segment, tag or filters send) or the given ids (a list
// send), in send_chunks.entries; chunks.ts loads exactly those, still applying the audience.
import type { Queryable } from '../store/db.js';
import type { AppRecord } from '../apps/app-store.js';
import { audienceCondition, Params } from '../audience/filter.js';
import type { SendRequest } from '../send-model/request.js';
import { CHUNK_SIZE } from './planner.js';
import { listGroups, recordTimezonePlan, type ZoneChunk } from './timezone.js';
import { isListTarget } from '../audience/target-kinds.js';

const HOUR_MS = 3_600_000;

/** The hour (0–23, UTC) of install `s`'s last activity; NULL when it was never active. */
const LAST_ACTIVE_HOUR = `extract(hour FROM s.last_active AT TIME ZONE 'UTC')::int`;

/**
 * When the installs last active at `hour` (UTC) get the send: the first hour:00 at or after `from`,
 * or `from` itself when it falls inside that hour (they are active about now); within 24 h of `from`.
 * Never active (null): at `from`.
 */
export function hourMoment(hour: number | null, from: Date): Date {
  if (hour === null) return from;
  const at = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate(), hour);
  if (at + HOUR_MS <= from.getTime()) return new Date(at + 24 * HOUR_MS);
  return new Date(Math.max(at, from.getTime()));
}

/** The moment of each group, indexed by hour + 2 (a SQL array is 1-based; never active is -1). */
function momentsByIndex(from: Date): string[] {
  return [null, ...Array.from({ length: 24 }, (_, h) => h)].map((h) => hourMoment(h, from).toISOString());
}

export interface LastActivePlan {
  chunks: number;
  planned: number;
}

/**
 * Plans a last-active send's chunks and chunks_total inside the firing transaction. A segment, tag
 * or filters send: one statement, index-friendly as the planner's (app, seq ≤ max_seq, the audience
 * condition, at most `cap` installs by seq), grouped by hour and cut into chunks of `size` seqs,
 * numbered in the order they go out; nothing of the audience passes through this process.
 */
export async function planLastActive(
  db: Queryable,
  app: AppRecord,
  sendId: number,
  req: SendRequest,
  opts: { maxSeq: number; cap: number; from: Date; size?: number },
): Promise<LastActivePlan> {
  const size = opts.size ?? CHUNK_SIZE;
  const t = req.target;
  if (isListTarget(t)) return planList(db, app, sendId, req, opts.from, size);
  if (opts.cap <= 0) return record(db, sendId, 0, 0);
  const params = new Params([app.id, opts.maxSeq, opts.cap, size, momentsByIndex(opts.from), sendId]);
  const condition = audienceCondition(app, req.target, params);
  const res = await db.query<{ chunks: number; planned: number }>(
    `WITH a AS (SELECT seq, coalesce(${LAST_ACTIVE_HOUR}, -1) AS h FROM subscriptions s
                 WHERE s.app_id = $1 AND s.subscribed AND s.seq <= $2 AND ${condition} ORDER BY seq LIMIT $3),
          n AS (SELECT seq, h, (row_number() OVER (PARTITION BY h ORDER BY seq) - 1) / $4 AS part FROM a),
          g AS (SELECT h, part, array_agg(seq::text ORDER BY seq) AS entries, min(seq) AS lo, max(seq) AS hi,
                       count(*)::int AS planned, ($5::timestamptz[])[h + 2] AS nb FROM n GROUP BY h, part),
          ins AS (INSERT INTO send_chunks (send_id, chunk, from_seq, to_seq, planned, by_zone, timezone, not_before, entries)
                  SELECT $6, (row_number() OVER (ORDER BY nb, h, part) - 1)::int, lo - 1, hi, planned, false, NULL, nb, entries FROM g
                  ON CONFLICT DO NOTHING RETURNING planned)
     SELECT count(*)::int AS chunks, coalesce(sum(planned), 0)::int AS planned FROM ins`,
    params.values,
  );
  return record(db, sendId, res.rows[0].chunks, res.rows[0].planned);
}

async function record(db: Queryable, sendId: number, chunks: number, planned: number): Promise<LastActivePlan> {
  await db.query('UPDATE sends SET chunks_total = $2, updated_at = now() WHERE id = $1', [sendId, chunks]);
  return { chunks, planned };
}

/** A list send: each given id at the hour of its first install the send goes to (timezone.ts's grouping by another key). */
async function planList(db: Queryable, app: AppRecord, sendId: number, req: SendRequest, from: Date, size: number): Promise<LastActivePlan> {
  const groups = await listGroups(db, app, req, size, `(${LAST_ACTIVE_HOUR})::text`);
  const ordered = [...groups]
    .map(([hour, parts]) => ({ parts, notBefore: hourMoment(hour === null ? null : Number(hour), from) }))
    .sort((a, b) => a.notBefore.getTime() - b.notBefore.getTime());
  const chunks: ZoneChunk[] = [];
  for (const g of ordered) for (const p of g.parts) chunks.push({ chunk: chunks.length, timezone: null, notBefore: g.notBefore, ...p });
  await recordTimezonePlan(db, sendId, chunks, { byZone: false });
  return { chunks: chunks.length, planned: chunks.reduce((sum, c) => sum + c.planned, 0) };
}
