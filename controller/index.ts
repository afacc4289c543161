// The operator (`herald controller`): App and Send controllers, the scheduler, the REST mirror and
// retention, run by one leader among the replicas. Every replica keeps its caches warm, so a new
// leader starts reconciling as soon as it holds the Lease.
import type { Bus } from '../core/bus/jetstream.js';
import type { MirrorMode } from '../core/config.js';
import type { Logger } from '../core/log.js';
import type { Retention } from '../core/send/retention.js';
import type { Pool } from '../core/store/db.js';
import { appController, type AppController } from './apps/controller.js';
import type { KubeClients } from './kube/client.js';
import { eventRecorder } from './kube/events.js';
import { defaultTimings, startLeaderElection, type LeaderElector, type LeaderElectorOptions } from './leader/lease.js';
import { startScheduler } from './scheduler/scheduler.js';
import { ChannelSweep } from '../core/live-activities/channel-sweep.js';
import type { ChannelManagementSettings } from '../core/live-activities/channel-managers.js';
import { sendController, type SendController } from './sends/controller.js';

export interface ControllerSettings {
  /** '' = every namespace. */
  namespace: string;
  mirror: MirrorMode;
  /** How long mirrored Send objects are kept (HERALD_SEND_RETENTION_SECONDS). */
  retentionMs: number;
  /** How long finished sends keep their rows in PostgreSQL, applied when this process runs the scheduler. */
  finishedSendRetention: Retention;
  resyncMs: number;
  /** HERALD_EVENT_HTTP_HOSTS: hosts an App's event destination may reach over plain http. */
  eventHttpHosts?: readonly string[];
  /** How often event destination states are read for the Apps' EventDestinationsHealthy (ms; default 15 s). */
  eventHealthEveryMs?: number;
  statusWritesPerSecond: number;
  statusIntervalMs?: number;
  /** HERALD_APNS_BROADCAST_URL and the CA: the scheduler deletes ended Live Activities' broadcast channels when this process leads it. */
  channelManagement?: ChannelManagementSettings;
  identity: string;
  lease: { namespace: string; name: string; durationSeconds: number; timings?: Partial<Pick<LeaderElectorOptions, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>> };
}

export interface ControllerDeps {
  clients: KubeClients;
  pool: Pool;
  bus: Bus;
  logger: Logger;
  settings: ControllerSettings;
}

export interface RunningController {
  apps: AppController;
  sends: SendController;
  readonly isLeader: boolean;
  /** Broadcast channels not deleted at Apple while this replica led the scheduler, by reason (controller/metrics.ts counts them). */
  readonly channelDeleteFailures: ReadonlyMap<string, number>;
  /** Resolves if leadership is lost: the process must exit (its work may already be someone else's). */
  lost: Promise<void>;
  stop(): Promise<void>;
}

export async function startController(deps: ControllerDeps): Promise<RunningController> {
  const { clients, settings } = deps;
  const logger = deps.logger.child({ identity: settings.identity });
  const events = eventRecorder(clients.core, logger, settings.identity);
  const apps = appController({ clients, pool: deps.pool, logger, events, namespace: settings.namespace, resyncMs: settings.resyncMs, eventHttpHosts: settings.eventHttpHosts, eventHealthEveryMs: settings.eventHealthEveryMs });
  const sends = sendController({
    clients,
    pool: deps.pool,
    bus: deps.bus,
    logger,
    events,
    namespace: settings.namespace,
    resyncMs: settings.resyncMs,
    mirror: settings.mirror,
    retentionMs: settings.retentionMs,
    writesPerSecond: settings.statusWritesPerSecond,
    statusIntervalMs: settings.statusIntervalMs,
    appUid: (namespace, name) => apps.informers.apps.get(name, namespace)?.metadata.uid,
  });
  await apps.startInformers();
  await sends.startInformers();
  logger.info('caches synced');

  let stopScheduler: (() => Promise<void>) | undefined;
  const channelDeleteFailures = new Map<string, number>();
  const deleteFailed = (reason: string, channels: number) => channelDeleteFailures.set(reason, (channelDeleteFailures.get(reason) ?? 0) + channels);
  let markLost!: () => void;
  const lost = new Promise<void>((resolve) => (markLost = resolve));
  const elector: LeaderElector = startLeaderElection({
    coordination: clients.coordination,
    namespace: settings.lease.namespace,
    name: settings.lease.name,
    identity: settings.identity,
    ...defaultTimings(settings.lease.durationSeconds),
    ...settings.lease.timings,
    logger,
    async onStartedLeading() {
      apps.startWorkers();
      await sends.startWorkers();
      const channels = new ChannelSweep(deps.pool, settings.channelManagement ?? {}, logger, { deleteFailed });
      stopScheduler = startScheduler({ pool: deps.pool, bus: deps.bus, logger, retention: settings.finishedSendRetention, channels });
    },
    onStoppedLeading: () => markLost(),
  });

  return {
    apps,
    sends,
    get isLeader() {
      return elector.isLeader;
    },
    channelDeleteFailures,
    lost,
    async stop() {
      // Stop the work first, then release the Lease so the other replica takes over at once.
      await stopScheduler?.();
      await apps.stop();
      await sends.stop();
      await elector.stop();
    },
  };
}
