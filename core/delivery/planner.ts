// The planner (ARCHITECTURE "The life of a send", step 2): pages the audience snapshot of a send
// in keyset (seq) order into chunks of at most 500 devices, records the chunk boundaries in
// send_chunks once, and publishes one chunk job per chunk that has not started. A replan (the
// plan job redelivered after a crash, or published twice) reads the recorded boundaries instead
// of paging again, so it always produces the same chunks, whatever happened to the audience since.
import type { Pool, PoolClient } from '../store/db.js';
import { inTransaction } from '../store/db.js';
import type { Bus } from '../bus/jetstream.js';
import { SUBJECTS } from '../bus/subjects.js';
import { getApp, type AppRecord } from '../apps/app-store.js';
import { audienceCondition, Params } from '../audience/filter.js';
import type { SendRequest } from '../send/request.js';
import { CHUNK_SIZE, chunkMsgId, type ChunkJob } from './jobs.js';
import { finishIfComplete, stopSend } from './finish.js';

export interface ChunkBounds {
  chunk: number;
  fromSeq: number | null;
  toSeq: number | null;
  planned: number;
}

export type PlanOutcome =
  | { kind: 'planned'; chunks: number; published: number }
  | { kind: 'finished' } // nothing to plan: the send is over (or does not exist)
  | { kind: 'stopped'; reason: 'paused' | 'credentials' };

interface SendToPlan {
  id: number;
  app_id: string;
  status: string;
  request: SendRequest;
  total_recipients: number;
  audience_max_seq: number | null;
  chunks_total: number | null;
  stopped: string | null;
}

/**
 * Keyset boundaries of a segment or tag audience: every CHUNK_SIZE-th seq, and the last one. At
 * most `cap` devices (the send's total_recipients: never deliver to more than were counted).
 */
export async function audienceBoundaries(db: Pool | PoolClient, app: AppRecord, req: SendRequest, maxSeq: number, cap: number, size = CHUNK_SIZE): Promise<ChunkBounds[]> {
  if (cap <= 0) return [];
  const params = new Params([app.id, maxSeq, cap, size]);
  const condition = audienceCondition(app, req.target, params);
  const res = await db.query<{ seq: number; rn: number }>(
    `WITH a AS (SELECT seq FROM subscriptions s WHERE s.app_id = $1 AND s.subscribed AND s.seq <= $2 AND ${condition}
                 ORDER BY seq LIMIT $3),
          n AS (SELECT seq, row_number() OVER (ORDER BY seq) AS rn FROM a)
     SELECT seq, rn FROM n WHERE rn % $4 = 0
     UNION ALL
     SELECT max(seq), count(*) FROM a HAVING count(*) % $4 <> 0
     ORDER BY rn`,
    params.values,
  );
  const bounds: ChunkBounds[] = [];
  let from = 0;
  let before = 0;
  for (const row of res.rows) {
    const rn = Number(row.rn);
    bounds.push({ chunk: bounds.length, fromSeq: from, toSeq: Number(row.seq), planned: rn - before });
    from = Number(row.seq);
    before = rn;
  }
  return bounds;
}

function listBounds(req: SendRequest): ChunkBounds[] {
  if (req.target.kind !== 'subscription_ids' && req.target.kind !== 'external_ids') return [];
  const ids = req.target.ids.length;
  // Lists hold at most 500 ids (contract "Limits"), so a list send is one chunk.
  return ids ? [{ chunk: 0, fromSeq: null, toSeq: null, planned: ids }] : [];
}

async function recordPlan(pool: Pool, send: SendToPlan, app: AppRecord): Promise<void> {
  await inTransaction(pool, async (db) => {
    const locked = await db.query('SELECT chunks_total, status FROM sends WHERE id = $1 FOR UPDATE', [send.id]);
    const row = locked.rows[0];
    if (!row || row.chunks_total !== null || (row.status !== 'queued' && row.status !== 'sending')) return;
    const bounds =
      send.request.target.kind === 'segment' || send.request.target.kind === 'tag'
        ? await audienceBoundaries(db, app, send.request, send.audience_max_seq ?? 0, send.total_recipients)
        : listBounds(send.request);
    if (bounds.length) {
      await db.query(
        `INSERT INTO send_chunks (send_id, chunk, from_seq, to_seq, planned)
         SELECT $1, * FROM unnest($2::int[], $3::bigint[], $4::bigint[], $5::int[])
         ON CONFLICT DO NOTHING`,
        [send.id, bounds.map((b) => b.chunk), bounds.map((b) => b.fromSeq), bounds.map((b) => b.toSeq), bounds.map((b) => b.planned)],
      );
    }
    await db.query('UPDATE sends SET chunks_total = $2, updated_at = now() WHERE id = $1', [send.id, bounds.length]);
    // An audience that emptied since the estimate: nothing to deliver, everyone is skipped.
    if (!bounds.length) await finishIfComplete(db, send.id);
  });
}

/** Publishes the jobs of every chunk not yet started, a window at a time. */
async function publishChunks(pool: Pool, bus: Bus, sendId: number, onProgress?: () => void): Promise<number> {
  const res = await pool.query<{ chunk: number }>(
    `SELECT chunk FROM send_chunks WHERE send_id = $1 AND state = 'planned' ORDER BY chunk`,
    [sendId],
  );
  const WINDOW = 256;
  for (let i = 0; i < res.rows.length; i += WINDOW) {
    await Promise.all(
      res.rows.slice(i, i + WINDOW).map(({ chunk }) =>
        bus.publish(SUBJECTS.chunkJob, { sendId, chunk } satisfies ChunkJob, chunkMsgId(sendId, chunk)),
      ),
    );
    onProgress?.();
  }
  return res.rows.length;
}

export async function planSend(deps: { pool: Pool; bus: Bus }, sendId: number, opts: { onProgress?: () => void } = {}): Promise<PlanOutcome> {
  const { pool, bus } = deps;
  const res = await pool.query<SendToPlan>(
    `SELECT id, app_id, status, request, total_recipients, audience_max_seq, chunks_total, stopped FROM sends WHERE id = $1`,
    [sendId],
  );
  const send = res.rows[0];
  if (!send || (send.status !== 'queued' && send.status !== 'sending')) return { kind: 'finished' };
  const app = await getApp(pool, send.app_id);
  if (!app || app.invoiceOverdue || app.disabled) {
    await stopSend(pool, sendId, 'paused');
    return { kind: 'stopped', reason: 'paused' };
  }
  if (!app.hasCredentials) {
    await stopSend(pool, sendId, 'credentials', 'the app has no push key or certificate');
    return { kind: 'stopped', reason: 'credentials' };
  }
  if (send.chunks_total === null) await recordPlan(pool, send, app);
  const published = await publishChunks(pool, bus, sendId, opts.onProgress);
  const total = await pool.query('SELECT chunks_total FROM sends WHERE id = $1', [sendId]);
  return { kind: 'planned', chunks: total.rows[0]?.chunks_total ?? 0, published };
}
