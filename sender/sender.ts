// A sender process's parts, wired: the claim loops and chunk workers (work taken from
// PostgreSQL, claim.ts; a fast lane of a few slots for Live Activity pushes only), the bus
// wake-up, the APNs clients, the throttle, the outbox relay, and
// the shared scheduler of periodic duties (core/send/scheduler.ts: only the process holding its
// advisory lock works, so a cluster-less install fires schedules and exactly one process does).
// cli/commands/sender.ts builds the clients and calls startSender; tests call it in-process.
import type { Redis } from 'ioredis';
import type { Pool } from '../core/store/db.js';
import type { Bus } from '../core/bus/jetstream.js';
import type { Logger } from '../core/log.js';
import { startOutboxRelay } from '../core/bus/outbox.js';
import type { Retention } from '../core/send/retention.js';
import { startScheduler } from '../core/send/scheduler.js';
import { chunkBacklog } from '../core/delivery/claim.js';
import { subscribeWake } from '../core/delivery/wake.js';
import { ApnsClients, type ApnsSettings } from '../core/apns/clients.js';
import { FcmClients, type FcmSettings } from '../core/fcm/clients.js';
import { ChunkWorker, DEFAULT_WORKER_SETTINGS, type WorkerSettings } from './chunk-worker.js';
import { runClaimLoop } from './claim-loop.js';
import { channelSweepObserver, createSenderMetrics, dispatchObserver, type SenderMetrics } from './metrics.js';
import { createThrottle } from './throttle.js';
import { outageLog } from '../core/faults/outage-log.js';
import { EVENT_LANES, startEventDispatcher, type DispatcherOptions } from '../core/events/dispatcher.js';
import { destinationHealthForMetrics } from '../core/events/health.js';
import { ChannelSweep } from '../core/live-activities/channel-sweep.js';

export interface SenderOptions {
  pool: Pool;
  bus: Bus;
  logger: Logger;
  /** Per-send throttle buckets shared by all senders; without it throttle_rate_per_minute is not applied. */
  redis?: Redis;
  redisPrefix?: string;
  apns: ApnsSettings;
  /** The FCM gateway (HERALD_FCM_URL, HERALD_FCM_CA_FILE); absent: Android devices are skipped. */
  fcm?: FcmSettings;
  /** Chunks worked at once. */
  concurrency?: number;
  /**
   * Slots kept for Live Activity pushes besides `concurrency` (the fast lane, default 2; 0: none):
   * a broadcast's chunks can fill every other slot, never these.
   */
  liveActivitySlots?: number;
  worker?: Partial<WorkerSettings>;
  /** How often the scheduler's duties run when this process leads (ms, at most 1,000). */
  dutyEveryMs?: number;
  /** Retention of finished sends, applied when this process leads the scheduler (no default: the operator's settings). */
  retention: Retention;
  metrics?: SenderMetrics;
  /** The event dispatcher this process runs beside its delivery loops (core/events/dispatcher.ts); absent: none. */
  events?: Omit<DispatcherOptions, 'pool' | 'logger'>;
  /** HERALD_APNS_BROADCAST_URL, for the scheduler's deletion of ended Live Activities' broadcast channels (`apns.ca` applies). */
  broadcastUrl?: string;
}

/** The fast lane's slots when not configured (HERALD_SENDER_LIVE_ACTIVITY_SLOTS). */
export const DEFAULT_LIVE_ACTIVITY_SLOTS = 2;

/**
 * A sender's database connections unless HERALD_SENDER_DATABASE_CONNECTIONS says otherwise: two
 * per slot (a chunk's record and its lease renewal at once), one per event lane, and four for the
 * planner, the scheduler's duties and the metrics (docs/install.md "Database connections").
 */
export function senderPoolSize(concurrency: number, liveActivitySlots: number): number {
  return (concurrency + liveActivitySlots) * 2 + EVENT_LANES + 4;
}

export interface Sender {
  metrics: SenderMetrics;
  /** Stops taking work, lets taken chunks finish (or hands them back), stops the duties; closes APNs clients. */
  stop(): Promise<void>;
  active(): number;
}

export async function startSender(opts: SenderOptions): Promise<Sender> {
  const { pool, bus, logger } = opts;
  const settings: WorkerSettings = { ...DEFAULT_WORKER_SETTINGS, ...opts.worker };
  const metrics = opts.metrics ?? createSenderMetrics({ lag: () => chunkBacklog(pool), destinations: (limit) => destinationHealthForMetrics(pool, limit) });
  const clients = new ApnsClients(pool, opts.apns, logger);
  const fcm = opts.fcm ? new FcmClients(pool, opts.fcm, logger) : undefined;
  if (!opts.redis) logger.warn('no Redis: throttle_rate_per_minute is not applied by this sender');
  let stopping = false;
  const workerDeps = {
    pool,
    logger,
    metrics,
    clients,
    fcm,
    throttle: opts.redis ? createThrottle(opts.redis, opts.redisPrefix ?? 'herald:') : undefined,
    settings,
    stopping: () => stopping,
  };
  // Two loops over the same engine: every kind of send, and the fast lane of Live Activity pushes.
  const lanes = [{ worker: new ChunkWorker(workerDeps), slots: opts.concurrency ?? 4 }];
  const fast = opts.liveActivitySlots ?? DEFAULT_LIVE_ACTIVITY_SLOTS;
  // The lane has its own APNs connection (one per app and environment): its pushes never queue
  // behind the thousands of streams a broadcast keeps in flight on the others.
  const laneClients = fast > 0 ? new ApnsClients(pool, { ...opts.apns, client: { ...opts.apns.client, connections: 1 } }, logger) : undefined;
  if (laneClients) lanes.push({ worker: new ChunkWorker({ ...workerDeps, clients: laneClients, lane: 'live_activity' }), slots: fast });
  const loops = lanes.map(({ worker, slots }) => ({
    worker,
    loop: runClaimLoop({ concurrency: slots, logger, next: () => worker.next(), idlePollMs: settings.idlePollMs }),
  }));
  const unsubscribe = subscribeWake(bus, () => {
    for (const { worker, loop } of loops) {
      worker.wake();
      loop.wake();
    }
  });
  // A dependency outage is logged once, not every round.
  const relayOutage = outageLog(logger, 'outbox relay');
  const stopRelay = startOutboxRelay(pool, bus, { onError: (e) => relayOutage.down(e), onOk: () => relayOutage.up() });
  // When this process leads it also deletes ended Live Activities' broadcast channels at Apple.
  const channels = new ChannelSweep(pool, { broadcastUrl: opts.broadcastUrl, ca: opts.apns.ca, dialer: opts.apns.client?.dialer, providerTokens: opts.apns.client?.providerTokens }, logger, channelSweepObserver(metrics));
  const scheduler = startScheduler({ pool, bus, logger, retention: opts.retention, channels }, Math.min(opts.dutyEveryMs ?? 500, 1000));
  // Events yield to this sender's deliveries (core/events/dispatcher.ts YIELD_MS).
  const busy = () => loops.some(({ loop }) => loop.active() > 0);
  const dispatcher = opts.events ? startEventDispatcher({ pool, logger, stream: bus, observer: dispatchObserver(metrics), busy, ...opts.events }) : undefined;

  return {
    metrics,
    active: () => loops.reduce((n, { loop }) => n + loop.active(), 0),
    async stop() {
      stopping = true;
      unsubscribe();
      await Promise.all(loops.map(({ loop }) => loop.stop()));
      await scheduler.stop();
      await dispatcher?.stop();
      await stopRelay();
      await Promise.all([clients.close(), laneClients?.close(), fcm?.close()]);
    },
  };
}
