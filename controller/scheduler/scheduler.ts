// The controller leader runs the shared scheduler of delivery duties (core/send/scheduler.ts):
// firing due scheduled sends, releasing time-zone chunks, the pause sweep, and the retention of
// finished sends with the operator's settings (whichever process leads applies the same ones).
// Senders run it too; a PostgreSQL advisory lock lets exactly one process at a time do the work.
import type { Bus } from '../../core/bus/jetstream.js';
import type { Logger } from '../../core/log.js';
import type { Pool } from '../../core/store/db.js';
import type { Retention } from '../../core/send/retention.js';
import { startScheduler as startSharedScheduler } from '../../core/send/scheduler.js';
import type { ChannelSweep } from '../../core/live-activities/channel-sweep.js';

export function startScheduler(deps: { pool: Pool; bus: Bus; logger: Logger; retention: Retention; channels?: ChannelSweep }, intervalMs = 1000): () => Promise<void> {
  const scheduler = startSharedScheduler(deps, intervalMs);
  return () => scheduler.stop();
}
