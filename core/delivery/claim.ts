// Who works which chunk: PostgreSQL alone (docs/architecture.md "One owner of delivery
// state"). A sender takes the next chunk in one statement, FOR UPDATE SKIP LOCKED, so any number
// of senders claim at once without waiting on each other; the claim holds a lease that the sender
// renews while it works, and a chunk whose lease ran out (its sender died) is simply claimable
// again. `lease_until` on a planned chunk means "not before" (a throttled chunk handed back).
//
// Fairness: among the sends with a claimable chunk, the least recently served send goes first
// (`sends.last_claim_at`, NULL for a send never served), so a new list send waits for the next
// free slot, not behind the 2,000 chunks of another app's broadcast.
import type { Pool } from '../store/db.js';
import { requestHasSql, type SendRequest } from '../send-model/request.js';
import { writeTransition } from '../send-model/transitions.js';
import { statusInSql, unplannedSql } from '../send-model/states.js';
import { sendableSql } from '../apps/sendable.js';

export interface ClaimedChunk {
  sendId: number;
  chunk: number;
  fromSeq: number | null;
  toSeq: number | null;
  planned: number;
  /** How many times a sender started this chunk, this claim included (throttle hand-backs excluded). */
  claims: number;
  /** Timezone sends (timezone.ts): the chunk holds only the devices of this zone (null: no zone). */
  zone?: { timezone: string | null };
  /** Timezone list sends: the given ids this chunk counts for; last-active sends: those, or the seqs of its installs (last-active.ts). */
  entries?: string[];
  appId: string;
  /** app_credentials.updated_at in ms (0: no credentials): a change rebuilds the APNs client. */
  credentialsVersion: number;
  throttlePerMinute: number | null;
  targetKind: SendRequest['target']['kind'];
  /** A timezone or last-active send: its chunks wait for their moment, never throttled. */
  timezone: boolean;
  /** Some accepted send waits to be planned: the worker plans before its next claim. */
  unplannedWaiting: boolean;
}

/**
 * Which sends a claim (or a plan) may take: any, or Live Activity pushes only (the senders' fast
 * lane: a few slots that a broadcast's chunks can never hold, so an update waits for none of them).
 */
export type Lane = 'all' | 'live_activity';

/** The claim's condition on a chunk and its send, written once. */
const CLAIMABLE = `k.state IN ('planned', 'working') AND (k.lease_until IS NULL OR k.lease_until < clock_timestamp())
  AND (k.not_before IS NULL OR k.released_at IS NOT NULL)
  AND ${statusInSql('s.status', 'running')} AND s.stopped IS NULL AND ${sendableSql('a')}`;

/** The send's turn, and what the worker needs to know about it. */
const TURN = `UPDATE sends s SET last_claim_at = clock_timestamp()
             FROM apps a LEFT JOIN app_credentials c ON c.app_id = a.id
            WHERE s.id = $1 AND a.id = s.app_id
        RETURNING s.status, s.app_id, coalesce(extract(epoch FROM c.updated_at) * 1000, 0) AS cred_version,
                  s.throttle_per_min, s.target_kind, (${requestHasSql('s.request', 'timezoneDelivery')} OR ${requestHasSql('s.request', 'lastActiveDelivery')}) AS timezone,
                  EXISTS (SELECT 1 FROM sends u WHERE ${unplannedSql('u')} AND u.stopped IS NULL) AS unplanned`;

/**
 * Takes the next chunk for `leaseMs` (of a Live Activity push, in that lane), or returns undefined when none is claimable. The pause
 * check is in the same statement, so a pause committed before it is always seen. One more
 * statement: the send's turn (last_claim_at, with what the worker needs to know about the send and
 * whether a send waits to be planned), and on a send's first chunk the transition queued → sending.
 */
export async function claimNext(pool: Pool, leaseMs: number, lane: Lane = 'all'): Promise<ClaimedChunk | undefined> {
  const res = await pool.query({
    name: lane === 'all' ? 'herald-claim-chunk' : 'herald-claim-chunk-live-activity',
    text: `WITH pick AS (
         SELECT k.send_id, k.chunk FROM send_chunks k JOIN sends s ON s.id = k.send_id JOIN apps a ON a.id = s.app_id
          WHERE ${CLAIMABLE}${lane === 'all' ? '' : ` AND s.kind = 'live_activity'`}
          ORDER BY s.last_claim_at NULLS FIRST, k.send_id, k.chunk
          LIMIT 1 FOR UPDATE OF k SKIP LOCKED)
       UPDATE send_chunks k SET state = 'working', lease_until = clock_timestamp() + $1 * interval '1 millisecond', claims = k.claims + 1
         FROM pick WHERE k.send_id = pick.send_id AND k.chunk = pick.chunk
       RETURNING k.send_id, k.chunk, k.from_seq, k.to_seq, k.planned, k.claims, k.by_zone, k.timezone, k.entries`,
    values: [leaseMs],
  });
  const r = res.rows[0];
  if (!r) return undefined;
  const sendId = Number(r.send_id);
  const turn = await pool.query({
    name: 'herald-claim-turn',
    text: TURN,
    values: [sendId],
  });
  const t = turn.rows[0];
  if (!t) return undefined; // the send was deleted in between (its chunks went with it)
  if (t.status === 'queued') await writeTransition(pool, sendId, 'queued', 'chunk_started', {});
  const claimed: ClaimedChunk = {
    sendId,
    chunk: r.chunk,
    fromSeq: r.from_seq,
    toSeq: r.to_seq,
    planned: r.planned,
    claims: r.claims,
    appId: t.app_id,
    credentialsVersion: Number(t.cred_version),
    throttlePerMinute: t.throttle_per_min,
    targetKind: t.target_kind,
    timezone: t.timezone,
    unplannedWaiting: t.unplanned,
  };
  if (r.by_zone) claimed.zone = { timezone: r.timezone };
  if (r.entries) claimed.entries = r.entries;
  return claimed;
}

/** Extends the lease of a chunk this sender still works on (every lease/3 while it works). */
export async function renewLease(pool: Pool, sendId: number, chunk: number, leaseMs: number): Promise<void> {
  await pool.query(
    `UPDATE send_chunks SET lease_until = clock_timestamp() + $3 * interval '1 millisecond'
      WHERE send_id = $1 AND chunk = $2 AND state = 'working'`,
    [sendId, chunk, leaseMs],
  );
}

/**
 * Hands a chunk back, claimable again after `delayMs`: a throttle wait (`uncount`: that claim did
 * not start it, so it does not count towards the bound) or an error before its record (counted).
 */
export async function handBack(pool: Pool, sendId: number, chunk: number, delayMs: number, opts: { uncount: boolean }): Promise<void> {
  await pool.query(
    `UPDATE send_chunks SET state = 'planned', lease_until = clock_timestamp() + $3 * interval '1 millisecond',
            claims = claims - CASE WHEN $4 THEN 1 ELSE 0 END
      WHERE send_id = $1 AND chunk = $2 AND state = 'working'`,
    [sendId, chunk, delayMs, opts.uncount],
  );
}

/** Chunks of running sends that a sender may take: their app may send now, their zone is released. */
const BACKLOG_FROM = `FROM send_chunks k JOIN sends s ON s.id = k.send_id JOIN apps a ON a.id = s.app_id
  WHERE s.stopped IS NULL AND ${sendableSql('a')} AND (k.not_before IS NULL OR k.released_at IS NOT NULL)`;

/** The KEDA trigger's query (charts/herald/templates/sender-scaledobject.yaml must say the same; a chart test checks it). */
export const PENDING_CHUNKS_SQL = `SELECT count(*) ${BACKLOG_FROM} AND k.state = 'planned'`.replace(/\s+/g, ' ');

/** Chunks waiting to be claimed and chunks being worked (the KEDA/HPA signal, read at scrape). */
export async function chunkBacklog(pool: Pool): Promise<{ pending: number; working: number }> {
  const res = await pool.query(
    `SELECT count(*) FILTER (WHERE k.state = 'planned')::int AS pending, count(*) FILTER (WHERE k.state = 'working')::int AS working
       ${BACKLOG_FROM} AND k.state IN ('planned', 'working')`,
  );
  return res.rows[0];
}
