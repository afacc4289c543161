// A sender's work, one piece at a time (claim-loop.ts asks `next()` while a slot is free): a send
// to plan, else a chunk to deliver (plan-or-claim.ts). A claimed chunk's way through the sender,
// each step in a module of its own:
//
//   lease.ts          held while it is worked (renewed); handed back when it cannot be recorded
//   throttle.ts       its turn under the send's throttle (a far turn: handed back until then)
//   send-cache.ts     its send: the request, the app, a payload per language
//   outage-retry.ts   each database step retried through an outage, the chunk held
//   poison.ts         a chunk started too often without a record: its devices recorded failed
//   deliver.ts        else to Apple and back, in three steps:
//     routing.ts        each device to its own environment's gateway
//     retry-rounds.ts   in rounds: retried, or held while the gateway is out
//     tally.ts          counted, for its record and the metrics
//
// and recorded once (core/delivery/chunks.ts recordChunk). Nothing here counts a device as failed
// unless Apple answered and refused it (or its chunk is poison).
import type { Pool } from '../core/store/db.js';
import type { Logger } from '../core/log.js';
import type { ClaimedChunk, Lane } from '../core/delivery/claim.js';
import { loadChunkDevices, recordChunk } from '../core/delivery/chunks.js';
import type { ApnsClients } from '../core/apns/clients.js';
import type { FcmClients } from '../core/fcm/clients.js';
import type { Work } from './claim-loop.js';
import { Delivery } from './deliver.js';
import { ChunkLease } from './lease.js';
import type { SenderMetrics } from './metrics.js';
import { retryThroughOutage } from './outage-retry.js';
import { PlanOrClaim } from './plan-or-claim.js';
import { isPoison, poisonOutcome } from './poison.js';
import type { RetrySettings } from './retry-rounds.js';
import { SendCache } from './send-cache.js';
import { awaitTurn, type Throttle } from './throttle.js';

export interface WorkerSettings extends RetrySettings {
  /** The chunk lease (HERALD_SENDER_LEASE_MS): a chunk whose sender stopped renewing it is claimable again after this. */
  leaseMs: number;
  /** Starts of a chunk never recorded (HERALD_SENDER_MAX_CHUNK_STARTS); the last one records its devices failed (poison.ts). */
  maxChunkStarts: number;
  /** A throttled chunk waits in place up to this long; longer, it is handed back until its turn. */
  maxHoldMs: number;
  /** An idle sender looks for work this often even without a wake-up (a lost one costs no more). */
  idlePollMs: number;
}

export const DEFAULT_WORKER_SETTINGS: WorkerSettings = {
  leaseMs: 30_000,
  maxChunkStarts: 6,
  maxAttempts: 4,
  gatewayHoldMs: 300_000,
  backoff: { baseMs: 250, maxMs: 5000 },
  maxHoldMs: 5000,
  idlePollMs: 1000,
};

export interface WorkerDeps {
  pool: Pool;
  logger: Logger;
  metrics: SenderMetrics;
  clients: ApnsClients;
  /** The FCM gateway's clients (one per App); absent: Android devices are skipped. */
  fcm?: FcmClients;
  throttle?: Throttle;
  settings: WorkerSettings;
  /** True once the sender is stopping: throttle waits end with a hand-back instead. */
  stopping(): boolean;
  /** Live Activity pushes only: the fast lane's worker (sender.ts). Default: any send. */
  lane?: Lane;
}

export class ChunkWorker {
  private readonly work: PlanOrClaim;
  private readonly sends: SendCache;
  private readonly delivery: Delivery;

  constructor(private readonly deps: WorkerDeps) {
    this.work = new PlanOrClaim({ pool: deps.pool, logger: deps.logger, leaseMs: deps.settings.leaseMs, lane: deps.lane });
    this.sends = new SendCache(deps.pool);
    this.delivery = new Delivery({ ...deps, stopping: () => deps.stopping() });
  }

  /** A wake-up from the bus: a send may have been accepted. */
  wake(): void {
    this.work.wake();
  }

  /** The next piece of work, already taken (a plan is done inside it), or undefined. */
  async next(): Promise<Work | undefined> {
    const taken = await this.work.next();
    if (taken === 'planned') return async () => undefined; // planned in its own transaction; the slot is free again
    return taken ? () => this.deliverChunk(taken) : undefined;
  }

  /** A claimed chunk, from its turn to its record (or back). */
  private async deliverChunk(claimed: ClaimedChunk): Promise<void> {
    const { pool, settings, metrics } = this.deps;
    const stopping = () => this.deps.stopping();
    const { sendId, chunk } = claimed;
    const log = this.deps.logger.child({ sendId, chunk });
    const lease = new ChunkLease({ pool, metrics, leaseMs: settings.leaseMs, stopping }, claimed);
    const throughOutage = <T>(step: () => Promise<T>) => retryThroughOutage(step, { forMs: settings.leaseMs, stopping });
    try {
      const turnMs = await awaitTurn(this.deps.throttle, claimed, { maxHoldMs: settings.maxHoldMs, stopping });
      if (turnMs > 0) return await lease.backUntilTurn(turnMs);
      const send = await throughOutage(() => this.sends.get(sendId));
      if (!send) return; // the send was deleted: its chunks went with it
      const started = Date.now();
      const loaded = await throughOutage(() => loadChunkDevices(pool, send.app, send.request, claimed));
      const outcome = isPoison(claimed, settings.maxChunkStarts) ? poisonOutcome(claimed, loaded, log, metrics) : await this.delivery.deliver(send, claimed, loaded.devices, lease, log);
      const recorded = await throughOutage(() => recordChunk(pool, {
        appId: send.app.id, sendId, chunk, outcome, liveActivity: send.request.liveActivity, pushToken: send.request.target.pushToken,
      }));
      metrics.chunks.inc({ result: recorded.counted ? 'recorded' : 'duplicate' });
      metrics.chunkSeconds.observe((Date.now() - started) / 1000);
      if (recorded.finished) {
        log.info({ ...recorded.finished }, 'send finished');
        this.sends.forget(sendId);
      }
    } catch (error) {
      await lease.backAfter(error, log);
    } finally {
      lease.release();
    }
  }
}
