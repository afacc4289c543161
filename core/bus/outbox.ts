// Transactional outbox: whoever records a send also records its bus messages in the same
// statement (core/send/create-send.ts). After commit the writer publishes at once
// (`publishAndDelete`); a relay in every api and sender process re-publishes rows left behind by a
// process that died in between (`flush`).
// Message ids make a double publish harmless.
import { GroupedStatement, perPool } from '../store/coalesce.js';
import type { Pool, Queryable } from '../store/db.js';
import type { Bus } from './jetstream.js';

export interface OutboxMessage {
  subject: string; // relative subject (SUBJECTS)
  msgId: string;
  payload: unknown;
}

export interface EnqueuedMessage extends OutboxMessage {
  id: number;
}

/** Publishes messages just committed by this process (no re-read) and deletes their rows. */
export async function publishAndDelete(pool: Pool, bus: Bus, messages: EnqueuedMessage[]): Promise<void> {
  if (!messages.length) return;
  await Promise.all(messages.map((m) => bus.publish(m.subject, m.payload, m.msgId)));
  await deleterOf(pool).submit(messages.map((m) => m.id));
}

// Concurrent requests' published rows are deleted together: one statement per round trip, not per send.
const deleterOf = perPool(
  (pool: Pool) =>
    new GroupedStatement<number>(async (ids) => {
      await pool.query({ name: 'herald-outbox-delete', text: 'DELETE FROM outbox WHERE id = ANY($1)', values: [ids] });
      return [];
    }),
);

/** Publishes outbox rows older than `olderThanMs` (left behind by a process that died) and deletes them. */
export async function flush(pool: Pool, bus: Bus, opts: { olderThanMs?: number; limit?: number } = {}): Promise<number> {
  const { rows } = await pool.query(
    `SELECT id, subject, msg_id, payload FROM outbox
      WHERE created_at < now() - make_interval(secs => $1::double precision / 1000)
      ORDER BY id LIMIT $2`,
    [opts.olderThanMs ?? 5000, opts.limit ?? 500],
  );
  for (const row of rows) {
    await bus.publish(row.subject, row.payload, row.msg_id);
    await pool.query('DELETE FROM outbox WHERE id = $1', [row.id]);
  }
  return rows.length;
}

/** Runs the relay every `everyMs` until stopped. Failures (NATS down) are retried next round. */
export function startOutboxRelay(
  pool: Pool,
  bus: Bus,
  opts: { everyMs?: number; olderThanMs?: number; onError?: (e: unknown) => void; onOk?: () => void } = {},
): () => Promise<void> {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    running = flush(pool, bus, { olderThanMs: opts.olderThanMs ?? 5000 })
      .then(() => opts.onOk?.(), (e) => opts.onError?.(e))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, opts.everyMs ?? 1000);
      });
  };
  let timer = setTimeout(tick, opts.everyMs ?? 1000);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

/** Rows waiting to be published, counted up to `cap` (a bounded read, for /metrics and /readyz). */
export async function outboxBacklog(db: Queryable, cap = 100_000): Promise<number> {
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM (SELECT 1 FROM outbox LIMIT ${Math.floor(cap)}) o`);
  return rows[0].n as number;
}
