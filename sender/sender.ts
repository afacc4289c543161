// A sender process's parts, wired: the shared consumer and its loop, the chunk worker, the APNs
// clients, the throttle, and the periodic duties every sender also runs (outbox relay, firing due
// scheduled sends, releasing the time-zone chunks whose moment has come, stopping the sends of apps
// marked overdue). cli/commands/sender.ts builds the
// clients and calls startSender; tests call it in-process.
import type { Redis } from 'ioredis';
import type { Pool } from '../core/store/db.js';
import type { Bus } from '../core/bus/jetstream.js';
import type { Logger } from '../core/log.js';
import { startOutboxRelay } from '../core/bus/outbox.js';
import { fireDueSends } from '../core/send/fire-due.js';
import { stopOverdueSends } from '../core/delivery/finish.js';
import { releaseDueChunks } from '../core/delivery/timezone.js';
import { repairStalledSends } from '../core/delivery/repair.js';
import { ApnsClients, type ApnsSettings } from './apns-clients.js';
import { ChunkWorker, DEFAULT_WORKER_SETTINGS, type WorkerSettings } from './chunk-worker.js';
import { ensureSenderConsumer, runConsumerLoop } from './consumer.js';
import { createSenderMetrics, type SenderMetrics } from './metrics.js';
import { createThrottle } from './throttle.js';
import { outageLog } from '../core/faults/outage-log.js';
import { isUnavailable } from '../core/faults/unavailable.js';

export interface SenderOptions {
  pool: Pool;
  bus: Bus;
  logger: Logger;
  /** Per-send throttle buckets shared by all senders; without it throttle_rate_per_minute is not applied. */
  redis?: Redis;
  redisPrefix?: string;
  apns: ApnsSettings;
  /** Chunk jobs worked at once. */
  concurrency?: number;
  worker?: Partial<WorkerSettings>;
  /** How often the periodic duties run (ms). The pause check runs at least every second. */
  dutyEveryMs?: number;
  metrics?: SenderMetrics;
}

export interface Sender {
  metrics: SenderMetrics;
  /** Stops pulling, lets taken jobs finish or return them, stops the duties; closes APNs clients. */
  stop(): Promise<void>;
  active(): number;
}

export async function startSender(opts: SenderOptions): Promise<Sender> {
  const { pool, bus, logger } = opts;
  const settings: WorkerSettings = { ...DEFAULT_WORKER_SETTINGS, ...opts.worker };
  await ensureSenderConsumer(bus, { ackWaitMs: settings.ackWaitMs, maxDeliver: settings.maxDeliver });
  const metrics =
    opts.metrics ??
    createSenderMetrics({
      lag: async () => {
        const info = await bus.jsm.consumers.info(bus.names.workStream, bus.names.senderConsumer);
        return { pending: info.num_pending, ackPending: info.num_ack_pending };
      },
    });
  const clients = new ApnsClients(pool, opts.apns, logger);
  if (!opts.redis) logger.warn('no Redis: throttle_rate_per_minute is not applied by this sender');
  let stopping = false;
  const worker = new ChunkWorker({
    pool,
    bus,
    logger,
    metrics,
    clients,
    throttle: opts.redis ? createThrottle(opts.redis, opts.redisPrefix ?? 'herald:') : undefined,
    settings,
    stopping: () => stopping,
  });
  const loop = runConsumerLoop(bus, { concurrency: opts.concurrency ?? 4, logger, handle: (msg) => worker.handle(msg) });
  // Issue 9: a dependency outage is logged once, not every round.
  const relayOutage = outageLog(logger, 'outbox relay');
  const dutyOutage = outageLog(logger, 'sender duties');
  const stopRelay = startOutboxRelay(pool, bus, { onError: (e) => relayOutage.down(e), onOk: () => relayOutage.up() });

  // Duties: the pause check (issue: no new chunk within one second — the claim itself checks the
  // flag; this closes sends whose remaining chunks sit in the queue) and due scheduled sends.
  const every = Math.min(opts.dutyEveryMs ?? 500, 1000);
  let duty: Promise<unknown> = Promise.resolve();
  let nextRepair = Date.now() + 30_000;
  const tick = () => {
    duty = (async () => {
      try {
        await stopOverdueSends(pool);
        const fired = await fireDueSends({ pool, bus });
        for (const f of fired) logger.info({ ...f }, 'scheduled send fired');
        const released = await releaseDueChunks({ pool, bus });
        if (released.length) logger.info({ chunks: released.length }, 'time-zone chunks released');
        if (Date.now() >= nextRepair) {
          nextRepair = Date.now() + 30_000;
          const repaired = await repairStalledSends(pool, bus);
          if (repaired.plans.length || repaired.chunks.length) logger.warn({ ...repaired }, 'stalled sends given their jobs again');
        }
        dutyOutage.up();
      } catch (error) {
        if (isUnavailable(error)) dutyOutage.down(error);
        else logger.warn({ err: error }, 'sender duty round failed');
      }
    })().finally(() => {
      if (!stopping) timer = setTimeout(tick, every);
    });
  };
  let timer = setTimeout(tick, every);

  return {
    metrics,
    active: () => loop.active(),
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await loop.stop();
      await duty;
      await stopRelay();
      await clients.close();
    },
  };
}
