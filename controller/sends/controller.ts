// Wiring of the Send controller: the Send informer and work queue (syncSend), the batched status
// poller, the retention sweep and the REST mirror. Logic lives in sync.ts, status-sync.ts,
// retention.ts and mirror.ts.
import type { Bus } from '../../core/bus/jetstream.js';
import type { MirrorMode } from '../../core/config.js';
import type { Logger } from '../../core/log.js';
import type { Pool } from '../../core/store/db.js';
import { PgIdempotencyGuard } from '../../core/idempotency/pg-guard.js';
import { customObjects, keyOf, type KubeClients } from '../kube/client.js';
import type { EventRecorder } from '../kube/events.js';
import { resilientInformer, type InformerEvent, type ResilientInformer } from '../kube/informer.js';
import { TokenBucket } from '../kube/token-bucket.js';
import { WorkQueue } from '../kube/work-queue.js';
import { startMirror } from './mirror.js';
import { sweepSends } from './retention.js';
import { startStatusPoller, type SendRowWithMessage } from './status-sync.js';
import { syncSend, type SendSyncDeps } from './sync.js';
import { SEND_PLURAL, type SendObject, type SendObjectStatus } from './types.js';

export interface SendControllerOptions {
  clients: KubeClients;
  pool: Pool;
  bus: Bus;
  logger: Logger;
  events: EventRecorder;
  namespace: string;
  resyncMs: number;
  mirror: MirrorMode;
  retentionMs: number;
  writesPerSecond: number;
  statusIntervalMs?: number;
  /** The uid of an App from the App informer's cache: mirrors are owned by their App. */
  appUid?: (namespace: string, name: string) => string | undefined;
}

export interface SendController {
  informer: ResilientInformer<SendObject>;
  queue: WorkQueue;
  startInformers(): Promise<void>;
  startWorkers(): Promise<void>;
  stop(): Promise<void>;
}

export function sendController(opts: SendControllerOptions): SendController {
  const { clients, logger } = opts;
  const log = logger.child({ controller: 'sends' });
  const rows = new Map<string, SendRowWithMessage>();
  const submitted = new Map<string, SendObjectStatus>();
  const limiter = new TokenBucket(opts.writesPerSecond, opts.writesPerSecond);
  const idempotency = new PgIdempotencyGuard(opts.pool);
  let workers = false;
  const stops: (() => Promise<void>)[] = [];

  const takeRow = (key: string) => {
    const row = rows.get(key);
    rows.delete(key);
    return row;
  };
  const deps: SendSyncDeps = {
    pool: opts.pool,
    bus: opts.bus,
    logger: log,
    idempotency,
    custom: clients.custom,
    events: opts.events,
    getSend: (n, name) => informer.get(name, n),
    appUid: opts.appUid,
    takeRow,
    beforeWrite: () => limiter.take(),
    submitted,
  };
  const queue = new WorkQueue({ name: 'sends', logger: log, concurrency: 4, reconcile: (key) => syncSend(deps, key) });

  const informer: ResilientInformer<SendObject> = resilientInformer<SendObject>({
    kc: clients.kc,
    ...customObjects<SendObject>(clients, SEND_PLURAL, opts.namespace || undefined),
    logger: log,
    resyncMs: opts.resyncMs,
    onEvent: (event, send) => {
      if (event === 'delete') {
        submitted.delete(send.metadata.uid!);
        rows.delete(keyOf(send.metadata));
        return;
      }
      if (workers && wantsReconcile(event, send)) queue.add(keyOf(send.metadata));
    },
  });

  return {
    informer,
    queue,
    async startInformers() {
      await informer.start();
      await informer.synced();
    },
    async startWorkers() {
      workers = true;
      queue.start();
      for (const send of informer.list()) queue.add(keyOf(send.metadata));
      stops.push(startStatusPoller({
        pool: opts.pool,
        logger: log,
        list: () => informer.list(),
        intervalMs: opts.statusIntervalMs,
        onChange: (key, row) => {
          rows.set(key, row);
          queue.add(key);
        },
      }));
      if (opts.retentionMs > 0) stops.push(startRetentionSweep(clients, log, () => informer.list(), opts.retentionMs));
      stops.push(await startMirror({ bus: opts.bus, pool: opts.pool, custom: clients.custom, logger: log, mode: opts.mirror, namespace: opts.namespace, appUid: opts.appUid }));
    },
    async stop() {
      workers = false;
      for (const stop of stops.splice(0).reverse()) await stop();
      await informer.stop();
      await queue.stop();
    },
  };
}

/**
 * Whether an informer event asks for a reconcile: updates of a Send that has its id are our own
 * status writes (the poller follows those), except a spec.cancel not yet carried out.
 */
function wantsReconcile(event: InformerEvent, send: SendObject): boolean {
  const cancelPending = send.spec?.cancel === true && send.status?.canceled !== true;
  return !(event === 'update' && send.status?.id !== undefined && !cancelPending);
}

/** Finished Sends past their retention deleted, a sweep every quarter of it (1 s to 1 min); gives its stop. */
function startRetentionSweep(clients: KubeClients, log: Logger, list: () => ReadonlyArray<SendObject>, retentionMs: number): () => Promise<void> {
  const sweep = () => sweepSends({ custom: clients.custom, logger: log, list }, retentionMs).catch(() => undefined);
  const timer = setInterval(sweep, Math.min(60_000, Math.max(1000, retentionMs / 4)));
  timer.unref();
  void sweep();
  return async () => clearInterval(timer);
}
