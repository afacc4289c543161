// One chunk's life in the store: read its state, claim it (a lease: one sender at a time), load
// its devices (deterministic: the recorded keyset bounds, or the send's id list), and record its
// outcome together with the send's counters in one transaction keyed by (send, chunk).
import type { Pool, Queryable } from '../store/db.js';
import { inTransaction } from '../store/db.js';
import { getApp, type AppRecord } from '../apps/app-store.js';
import { audienceCondition, Params } from '../audience/filter.js';
import type { SendRequest } from '../send/request.js';
import { finishIfComplete, stopWithin, type FinishedSend } from './finish.js';

export type ChunkState = 'planned' | 'working' | 'done' | 'left_out';

/** What a sender needs to decide about a chunk job before it starts it. */
export interface ChunkView {
  sendStatus: string;
  stopped: string | null;
  appId: string;
  appOverdue: boolean;
  /** app_credentials.updated_at in ms (0: no credentials): a change rebuilds the APNs client. */
  credentialsVersion: number;
  throttlePerMinute: number | null;
  targetKind: SendRequest['target']['kind'];
  timezone: boolean;
  /** undefined: the send has no such chunk. */
  state?: ChunkState;
  planned: number;
  /** ms until another sender's lease on a working chunk ends (<= 0: free to take). */
  leaseLeftMs: number;
}

export async function readChunk(db: Queryable, sendId: number, chunk: number): Promise<ChunkView | undefined> {
  const res = await db.query(
    `SELECT s.status, s.stopped, s.app_id, a.invoice_overdue OR a.disabled AS overdue,
            coalesce(extract(epoch FROM c.updated_at) * 1000, 0) AS cred_version,
            s.throttle_per_min, s.target_kind, (s.request ? 'timezoneDelivery') AS timezone,
            k.state, coalesce(k.planned, 0) AS planned,
            coalesce(extract(epoch FROM k.lease_until - clock_timestamp()) * 1000, 0) AS lease_left
       FROM sends s JOIN apps a ON a.id = s.app_id
       LEFT JOIN app_credentials c ON c.app_id = s.app_id
       LEFT JOIN send_chunks k ON k.send_id = s.id AND k.chunk = $2
      WHERE s.id = $1`,
    [sendId, chunk],
  );
  const r = res.rows[0];
  if (!r) return undefined;
  return {
    sendStatus: r.status,
    stopped: r.stopped,
    appId: r.app_id,
    appOverdue: r.overdue,
    credentialsVersion: Number(r.cred_version),
    throttlePerMinute: r.throttle_per_min,
    targetKind: r.target_kind,
    timezone: r.timezone,
    state: r.state ?? undefined,
    planned: r.planned,
    leaseLeftMs: Number(r.lease_left),
  };
}

export interface ClaimedChunk {
  fromSeq: number | null;
  toSeq: number | null;
  planned: number;
  claims: number;
  /** Timezone sends (timezone.ts): the chunk holds only the devices of this zone (null: no zone). */
  zone?: { timezone: string | null };
  /** Timezone list sends: the given ids this chunk counts for. */
  entries?: string[];
}

/**
 * Takes the chunk for `leaseMs`: only a planned chunk, or a working one whose lease ran out (its
 * sender died), and only while the app is not overdue and the send not stopped — checked in the
 * same statement, so a pause recorded before it is always seen. Moves the send queued → sending.
 * A timezone send stays `scheduled` while it delivers, and its chunks are taken only once the
 * release duty has let them go (timezone.ts).
 */
export async function claimChunk(pool: Pool, sendId: number, chunk: number, leaseMs: number): Promise<ClaimedChunk | undefined> {
  const res = await pool.query(
    `UPDATE send_chunks k SET state = 'working', lease_until = clock_timestamp() + $3 * interval '1 millisecond', claims = claims + 1
      FROM sends s JOIN apps a ON a.id = s.app_id
     WHERE k.send_id = $1 AND k.chunk = $2 AND s.id = k.send_id
       AND (k.state = 'planned' OR (k.state = 'working' AND k.lease_until < clock_timestamp()))
       AND s.status IN ('queued', 'sending', 'scheduled') AND s.stopped IS NULL AND NOT a.invoice_overdue AND NOT a.disabled
       AND (k.not_before IS NULL OR k.released_at IS NOT NULL)
     RETURNING k.from_seq, k.to_seq, k.planned, k.claims, s.status, k.by_zone, k.timezone, k.entries`,
    [sendId, chunk, leaseMs],
  );
  const r = res.rows[0];
  if (!r) return undefined;
  if (r.status === 'queued') {
    await pool.query(`UPDATE sends SET status = 'sending', updated_at = now() WHERE id = $1 AND status = 'queued'`, [sendId]);
  }
  const claimed: ClaimedChunk = { fromSeq: r.from_seq, toSeq: r.to_seq, planned: r.planned, claims: r.claims };
  if (r.by_zone) claimed.zone = { timezone: r.timezone };
  if (r.entries) claimed.entries = r.entries;
  return claimed;
}

/** Extends the lease of a chunk this sender still works on (long chunks, with working()). */
export async function renewLease(pool: Pool, sendId: number, chunk: number, leaseMs: number): Promise<void> {
  await pool.query(
    `UPDATE send_chunks SET lease_until = clock_timestamp() + $3 * interval '1 millisecond'
      WHERE send_id = $1 AND chunk = $2 AND state = 'working'`,
    [sendId, chunk, leaseMs],
  );
}

/** Leaves out a chunk of a stopped send that was never finished (its sender died or it never started). */
export async function leaveOutChunk(pool: Pool, sendId: number, chunk: number): Promise<FinishedSend | undefined> {
  return inTransaction(pool, async (db) => {
    await db.query('SELECT 1 FROM sends WHERE id = $1 FOR UPDATE', [sendId]);
    const res = await db.query<{ planned: number }>(
      `UPDATE send_chunks SET state = 'left_out', left_out = planned, lease_until = NULL, finished_at = now()
        WHERE send_id = $1 AND chunk = $2
          AND (state = 'planned' OR (state = 'working' AND lease_until < clock_timestamp()))
        RETURNING planned`,
      [sendId, chunk],
    );
    if (res.rowCount) {
      await db.query('UPDATE sends SET chunks_done = chunks_done + 1, left_out = left_out + $2, updated_at = now() WHERE id = $1', [
        sendId,
        res.rows[0].planned,
      ]);
    }
    return finishIfComplete(db, sendId);
  });
}

/** One device to deliver to. `entry` is the audience entry it counts for (itself for segments). */
export interface Device {
  entry: string;
  token: string;
  language: string | null;
}

export interface ChunkDevices {
  devices: Device[];
  /** Audience entries of the chunk: devices for segment/tag, given ids for lists. */
  entries: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The devices of a chunk, the same on every attempt (up to subscriptions changed in between). */
export async function loadChunkDevices(db: Queryable, app: AppRecord, req: SendRequest, bounds: ClaimedChunk): Promise<ChunkDevices> {
  const target = req.target;
  if (target.kind === 'subscription_ids' || target.kind === 'external_ids') {
    const byId = target.kind === 'subscription_ids';
    // A timezone list send's chunk counts for its own share of the ids (timezone.ts).
    const given = bounds.entries ?? target.ids;
    const ids = byId ? given.filter((id) => UUID.test(id)).map((id) => id.toLowerCase()) : given;
    const res = await db.query<{ entry: string; token: string; language: string | null }>(
      byId
        ? `SELECT id::text AS entry, token, language FROM subscriptions WHERE app_id = $1 AND subscribed AND id = ANY($2::uuid[])`
        : `SELECT external_id AS entry, token, language FROM subscriptions WHERE app_id = $1 AND subscribed AND external_id = ANY($2::text[])
           ORDER BY seq`,
      [app.id, ids],
    );
    // Entries as given (a subscription id matches whatever its case was in the request).
    const entries = byId ? given.map((id) => id.toLowerCase()) : given;
    return { devices: res.rows, entries };
  }
  const params = new Params([app.id, bounds.fromSeq ?? 0, bounds.toSeq ?? 0, bounds.planned]);
  const condition = audienceCondition(app, target, params);
  // A timezone send's chunk: the devices of its zone only (timezone.ts).
  const zone = bounds.zone ? ` AND s.timezone IS NOT DISTINCT FROM ${params.add(bounds.zone.timezone)}::text` : '';
  const res = await db.query<{ seq: number; token: string; language: string | null }>(
    `SELECT seq, token, language FROM subscriptions s
      WHERE s.app_id = $1 AND s.subscribed AND s.seq > $2 AND s.seq <= $3 AND ${condition}${zone}
      ORDER BY seq LIMIT $4`,
    params.values,
  );
  const devices = res.rows.map((r) => ({ entry: String(r.seq), token: r.token, language: r.language }));
  return { devices, entries: devices.map((d) => d.entry) };
}

export interface ChunkOutcome {
  sent: number;
  failed: number;
  skipped: number;
  /** Entries not sent because the send stopped (credentials refused) inside this chunk. */
  leftOut: number;
  /** Tokens APNs answered 410 Unregistered for: unsubscribed in the same transaction. */
  unsubscribe: string[];
  /** APNs refused the app's credentials (their reason): the send stops in the same transaction. */
  stop?: string;
}

export interface RecordResult {
  /** false: the chunk had already been recorded (a redelivery); nothing moved. */
  counted: boolean;
  finished?: FinishedSend;
}

/**
 * Records a chunk's outcome and moves the send's counters, once: the conditional close of the
 * (send, chunk) row decides, in the same transaction as the counters, whether anything moves.
 */
export async function recordChunk(pool: Pool, appId: string, sendId: number, chunk: number, outcome: ChunkOutcome): Promise<RecordResult> {
  return inTransaction(pool, async (db) => {
    // Lock order everywhere: the send row first, then its chunks.
    await db.query('SELECT 1 FROM sends WHERE id = $1 FOR UPDATE', [sendId]);
    const closed = await db.query(
      `UPDATE send_chunks SET state = 'done', sent = $3, failed = $4, skipped = $5, left_out = $6, lease_until = NULL, finished_at = now()
        WHERE send_id = $1 AND chunk = $2 AND state IN ('planned', 'working')`,
      [sendId, chunk, outcome.sent, outcome.failed, outcome.skipped, outcome.leftOut],
    );
    if (!closed.rowCount) return { counted: false };
    if (outcome.unsubscribe.length) {
      await db.query(
        `UPDATE subscriptions SET subscribed = false, updated_at = now() WHERE app_id = $1 AND token = ANY($2) AND subscribed`,
        [appId, outcome.unsubscribe],
      );
    }
    await db.query(
      `UPDATE sends SET sent = sent + $2, failed = failed + $3, skipped = skipped + $4, left_out = left_out + $5,
              chunks_done = chunks_done + 1, status = CASE WHEN status = 'queued' THEN 'sending' ELSE status END, updated_at = now()
        WHERE id = $1`,
      [sendId, outcome.sent, outcome.failed, outcome.skipped, outcome.leftOut],
    );
    if (outcome.stop) return { counted: true, finished: await stopWithin(db, sendId, 'credentials', outcome.stop) };
    return { counted: true, finished: await finishIfComplete(db, sendId) };
  });
}

export async function loadSendForDelivery(db: Queryable, sendId: number): Promise<{ request: SendRequest; app: AppRecord } | undefined> {
  const res = await db.query('SELECT app_id, request FROM sends WHERE id = $1', [sendId]);
  const r = res.rows[0];
  if (!r) return undefined;
  const app = await getApp(db, r.app_id);
  return app ? { request: r.request as SendRequest, app } : undefined;
}
