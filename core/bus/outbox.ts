// Transactional outbox: whoever records a send also records its bus messages in the same
// transaction (`enqueue`). After commit the writer publishes at once (`flush`); a relay in every
// api and sender process re-publishes rows left behind by a process that died in between.
// Message ids make a double publish harmless.
import type { Pool, Queryable } from '../store/db.js';
import type { Bus } from './jetstream.js';

export interface OutboxMessage {
  subject: string; // relative subject (SUBJECTS)
  msgId: string;
  payload: unknown;
}

export async function enqueue(db: Queryable, messages: OutboxMessage[]): Promise<number[]> {
  const ids: number[] = [];
  for (const m of messages) {
    const res = await db.query('INSERT INTO outbox (subject, msg_id, payload) VALUES ($1, $2, $3) RETURNING id', [
      m.subject,
      m.msgId,
      JSON.stringify(m.payload),
    ]);
    ids.push(res.rows[0].id as number);
  }
  return ids;
}

/** Publishes the given outbox rows (or, without ids, those older than `olderThanMs`) and deletes them. */
export async function flush(pool: Pool, bus: Bus, opts: { ids?: number[]; olderThanMs?: number; limit?: number } = {}): Promise<number> {
  const rows = opts.ids
    ? (await pool.query('SELECT id, subject, msg_id, payload FROM outbox WHERE id = ANY($1) ORDER BY id', [opts.ids])).rows
    : (
        await pool.query(
          `SELECT id, subject, msg_id, payload FROM outbox
            WHERE created_at < now() - make_interval(secs => $1::double precision / 1000)
            ORDER BY id LIMIT $2`,
          [opts.olderThanMs ?? 5000, opts.limit ?? 500],
        )
      ).rows;
  for (const row of rows) {
    await bus.publish(row.subject, row.payload, row.msg_id);
    await pool.query('DELETE FROM outbox WHERE id = $1', [row.id]);
  }
  return rows.length;
}

/** Runs the relay every `everyMs` until stopped. Failures (NATS down) are retried next round. */
export function startOutboxRelay(pool: Pool, bus: Bus, opts: { everyMs?: number; olderThanMs?: number; onError?: (e: unknown) => void } = {}): () => Promise<void> {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    if (stopped) return;
    running = flush(pool, bus, { olderThanMs: opts.olderThanMs ?? 5000 })
      .catch((e) => opts.onError?.(e))
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
