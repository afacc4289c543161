// Stalled sends get their jobs again. JetStream redelivery covers a sender that dies; this covers
// a job that ran out of deliveries while PostgreSQL or NATS was down for longer than its back-off
// (about a minute), which would otherwise leave a send `queued` or `sending` forever. A send that
// has made no progress for `idleMs` gets its plan job again if it was never planned, and a chunk
// job for every chunk still open, not leased, and due. Planning, claiming and recording are
// idempotent, so a needless repair costs a no-op job. The message ids carry a time bucket: every
// sender runs this, and JetStream keeps one publish per bucket.
import type { Pool } from '../store/db.js';
import type { Bus } from '../bus/jetstream.js';
import { SUBJECTS } from '../bus/subjects.js';
import { chunkMsgId, planMsgId, type ChunkJob, type PlanJob } from './jobs.js';

export const DEFAULT_IDLE_MS = 10 * 60 * 1000;

export interface Repaired {
  plans: number[];
  chunks: { sendId: number; chunk: number }[];
}

export async function repairStalledSends(pool: Pool, bus: Bus, opts: { idleMs?: number; now?: Date } = {}): Promise<Repaired> {
  const idleMs = opts.idleMs ?? DEFAULT_IDLE_MS;
  const bucket = Math.floor((opts.now ?? new Date()).getTime() / idleMs);
  const plans = (
    await pool.query<{ id: number }>(
      `SELECT id FROM sends
        WHERE status IN ('queued', 'sending') AND chunks_total IS NULL AND stopped IS NULL
          AND updated_at < now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY id LIMIT 100`,
      [idleMs],
    )
  ).rows.map((r) => r.id);
  const chunks = (
    await pool.query<{ send_id: number; chunk: number }>(
      `SELECT c.send_id, c.chunk FROM send_chunks c JOIN sends s ON s.id = c.send_id
        WHERE s.status IN ('queued', 'sending', 'scheduled') AND s.stopped IS NULL
          AND s.updated_at < now() - make_interval(secs => $1::double precision / 1000)
          AND c.state IN ('planned', 'working') AND (c.lease_until IS NULL OR c.lease_until < now())
          AND (c.not_before IS NULL OR c.released_at IS NOT NULL)
        ORDER BY c.send_id, c.chunk LIMIT 1000`,
      [idleMs],
    )
  ).rows.map((r) => ({ sendId: r.send_id, chunk: r.chunk }));

  for (const sendId of plans) {
    const job: PlanJob = { sendId };
    await bus.publish(SUBJECTS.planJob, job, `${planMsgId(sendId)}-repair-${bucket}`);
  }
  for (const { sendId, chunk } of chunks) {
    const job: ChunkJob = { sendId, chunk };
    await bus.publish(SUBJECTS.chunkJob, job, `${chunkMsgId(sendId, chunk)}-repair-${bucket}`);
  }
  const touched = [...new Set([...plans, ...chunks.map((c) => c.sendId)])];
  // Progress clock restarts, so the next repair of the same send is one idle period away.
  if (touched.length) await pool.query('UPDATE sends SET updated_at = now() WHERE id = ANY($1)', [touched]);
  return { plans, chunks };
}
