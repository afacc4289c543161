// Keeps Send status in step with PostgreSQL. One query a tick reads every tracked send (batched by
// id), and only Sends whose numbers changed are queued for a status write; the queue coalesces a
// key that changes again before it is written, and writes go through a token bucket. So 1,000
// running sends cost one SELECT a second and at most `writesPerSecond` API calls, whatever their
// progress: each Send is at most about max(tick, changed sends / writesPerSecond) behind.
import type { Pool } from '../../core/store/db.js';
import type { Logger } from '../../core/log.js';
import { toStats, type SendCountsRow } from '../../core/send/stats.js';
import { isFinalStatus } from '../../core/send-model/states.js';
import { keyOf } from '../kube/client.js';
import type { SendObject, SendObjectStatus } from './types.js';

export interface SendRowWithMessage extends SendCountsRow {
  message: string;
  canceled_at: Date | null;
}

/** The numbers of a Send's status from its row (the same arithmetic as GET stats). */
export function countsFromRow(row: SendRowWithMessage): Required<Pick<SendObjectStatus, 'status' | 'total' | 'processed' | 'remaining' | 'sent' | 'failed' | 'skipped' | 'clicked' | 'message' | 'canceled'>> {
  const s = toStats(row);
  return {
    status: s.status,
    total: s.total_recipients,
    processed: s.processed,
    remaining: s.remaining,
    sent: s.sent,
    failed: s.failed,
    skipped: s.skipped,
    clicked: s.clicked,
    message: row.message,
    canceled: row.canceled_at !== null,
  };
}

export function countsDiffer(status: SendObjectStatus | undefined, row: SendRowWithMessage): boolean {
  const want = countsFromRow(row);
  return (Object.keys(want) as (keyof typeof want)[]).some((k) => status?.[k] !== want[k]);
}

export async function readSendRows(pool: Pool, ids: number[]): Promise<Map<number, SendRowWithMessage>> {
  const rows = new Map<number, SendRowWithMessage>();
  for (let i = 0; i < ids.length; i += 5000) {
    const res = await pool.query<SendRowWithMessage>(
      `SELECT id, app_id, status, total_recipients, sent, failed, skipped, left_out, clicked, message, canceled_at
         FROM sends WHERE id = ANY($1::bigint[])`,
      [ids.slice(i, i + 5000)],
    );
    for (const row of res.rows) rows.set(Number(row.id), row);
  }
  return rows;
}

export interface StatusPollerOptions {
  pool: Pool;
  logger: Logger;
  list: () => ReadonlyArray<SendObject>;
  /** Called with each Send whose numbers differ from its row, and the row. */
  onChange: (key: string, row: SendRowWithMessage) => void;
  intervalMs?: number;
  /** Finished sends are read again at this period (opens still raise clicked). */
  finishedEveryMs?: number;
}

export function startStatusPoller(opts: StatusPollerOptions): () => Promise<void> {
  const interval = opts.intervalMs ?? 1000;
  const finishedEvery = Math.max(1, Math.round((opts.finishedEveryMs ?? 30_000) / interval));
  let tick = 0;
  let stopped = false;
  let current: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const round = async () => {
    tick += 1;
    const all = tick % finishedEvery === 0;
    const tracked = new Map<number, SendObject>();
    for (const send of opts.list()) {
      const id = send.status?.id;
      if (id === undefined || send.metadata.deletionTimestamp) continue;
      if (all || !send.status?.status || !isFinalStatus(send.status.status)) tracked.set(id, send);
    }
    if (!tracked.size) return;
    const rows = await readSendRows(opts.pool, [...tracked.keys()]);
    for (const [id, send] of tracked) {
      const row = rows.get(id);
      if (row && countsDiffer(send.status, row)) opts.onChange(keyOf(send.metadata), row);
    }
  };
  const loop = () => {
    if (stopped) return;
    current = round()
      .catch((error) => opts.logger.warn({ err: error }, 'send status round failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, interval);
      });
  };
  loop();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await current;
  };
}
