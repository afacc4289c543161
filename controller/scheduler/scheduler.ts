// Fires due scheduled sends on the leader (core/send/fire-due.ts: rows claimed with FOR UPDATE
// SKIP LOCKED, so senders running the same loop never fire one twice), and releases the chunks of
// `delayed_option: timezone` sends whose zone's moment has come (core/delivery/timezone.ts).
import type { Bus } from '../../core/bus/jetstream.js';
import type { Logger } from '../../core/log.js';
import type { Pool } from '../../core/store/db.js';
import { fireDueSends } from '../../core/send/fire-due.js';
import { releaseDueChunks } from '../../core/delivery/timezone.js';

export function startScheduler(deps: { pool: Pool; bus: Bus; logger: Logger }, intervalMs = 1000): () => Promise<void> {
  const log = deps.logger.child({ component: 'scheduler' });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  const round = async () => {
    // Drain: a backlog (after an outage) fires in batches without waiting a tick between them.
    for (;;) {
      const fired = await fireDueSends({ pool: deps.pool, bus: deps.bus }, { limit: 50 });
      for (const f of fired) log.info({ sendId: f.sendId, status: f.status, total: f.totalRecipients }, 'scheduled send fired');
      if (fired.length < 50 || stopped) break;
    }
    for (;;) {
      const released = await releaseDueChunks({ pool: deps.pool, bus: deps.bus }, { limit: 500 });
      if (released.length) log.info({ chunks: released.length }, 'time-zone chunks released');
      if (released.length < 500 || stopped) return;
    }
  };
  const loop = () => {
    if (stopped) return;
    current = round()
      .catch((error) => log.warn({ err: error }, 'firing due sends failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, intervalMs);
      });
  };
  loop();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await current;
  };
}
