// Wiring of the App controller: an informer on Apps, Secret caches of the namespaces that hold
// Apps only (secret-caches.ts), a keyed work queue, and syncApp as the reconcile. Logic lives in
// sync.ts.
import type { V1Secret } from '@kubernetes/client-node';
import type { Logger } from '../../core/log.js';
import type { Pool } from '../../core/store/db.js';
import { customObjects, keyOf, type KubeClients } from '../kube/client.js';
import type { EventRecorder } from '../kube/events.js';
import { resilientInformer, type ResilientInformer } from '../kube/informer.js';
import { WorkQueue } from '../kube/work-queue.js';
import { syncApp, type AppSyncDeps } from './sync.js';
import { secretCaches, type SecretCaches } from './secret-caches.js';
import { watchDestinationHealth, type HealthWatch } from './event-health.js';
import { APP_PLURAL, secretNamesOf, type AppObject } from './types.js';

export interface AppControllerOptions {
  clients: KubeClients;
  pool: Pool;
  logger: Logger;
  events: EventRecorder;
  /** '' = every namespace. */
  namespace: string;
  resyncMs: number;
  eventHttpHosts?: readonly string[];
  /** How often the event destinations' states are read for their Apps' condition (ms; default 15 s). */
  eventHealthEveryMs?: number;
}

export interface AppController {
  informers: { apps: ResilientInformer<AppObject>; secrets: SecretCaches };
  queue: WorkQueue;
  /** Starts the caches (both replicas keep them warm). */
  startInformers(): Promise<void>;
  /** Starts reconciling (the leader only). */
  startWorkers(): void;
  stop(): Promise<void>;
}

export function appController(opts: AppControllerOptions): AppController {
  const { clients, namespace, logger } = opts;
  const log = logger.child({ controller: 'apps' });
  let workers = false;
  let healthWatch: HealthWatch | undefined;

  const enqueue = (app: AppObject) => {
    if (workers) queue.add(keyOf(app.metadata));
  };
  const enqueueNamespace = (namespace: string) => {
    for (const app of apps.list(namespace)) enqueue(app);
  };
  // Every App's namespace gets its Secret cache; its Apps are reconciled again once it is filled.
  const watchSecretsOf = (app: AppObject) => {
    const namespace = app.metadata.namespace;
    if (namespace) secrets.watch(namespace, () => enqueueNamespace(namespace));
  };

  const apps: ResilientInformer<AppObject> = resilientInformer<AppObject>({
    kc: clients.kc,
    ...customObjects<AppObject>(clients, APP_PLURAL, namespace || undefined),
    logger: log,
    resyncMs: opts.resyncMs,
    onEvent: (_event, app) => {
      watchSecretsOf(app);
      enqueue(app);
    },
  });
  const secrets: SecretCaches = secretCaches({
    clients,
    logger: log,
    onSecret: (namespace, name) => {
      for (const app of apps.list(namespace)) {
        if (secretNamesOf(app.spec).includes(name)) enqueue(app);
      }
    },
  });
  const deps = appSyncDeps(opts, log, apps, secrets);
  const queue = new WorkQueue({ name: 'apps', logger: log, concurrency: 2, reconcile: (key) => syncApp(deps, key) });

  return {
    informers: { apps, secrets },
    queue,
    async startInformers() {
      // An App's first reconcile waits for its namespace's Secret cache (sync.ts).
      await apps.start();
      await apps.synced();
    },
    startWorkers() {
      workers = true;
      queue.start();
      for (const app of apps.list()) queue.add(keyOf(app.metadata));
      // A receiver going down changes nothing in Kubernetes: its App is reconciled when one of
      // its destinations changes state in PostgreSQL (EventDestinationsHealthy, kubectl get apps).
      healthWatch = watchDestinationHealth({
        pool: opts.pool,
        logger: log,
        everyMs: opts.eventHealthEveryMs ?? 15_000,
        changed: (appId) => {
          for (const app of apps.list()) if (app.status?.appId === appId) enqueue(app);
        },
      });
    },
    async stop() {
      workers = false;
      await healthWatch?.stop();
      await apps.stop();
      await secrets.stop();
      await queue.stop();
    },
  };
}

/** What syncApp reads: the Apps and Secrets from the caches, the rest from the options. */
function appSyncDeps(opts: AppControllerOptions, log: Logger, apps: ResilientInformer<AppObject>, secrets: SecretCaches): AppSyncDeps {
  return {
    pool: opts.pool,
    custom: opts.clients.custom,
    core: opts.clients.core,
    events: opts.events,
    logger: log,
    getApp: (n, name) => apps.get(name, n),
    getSecretData: (n, name) => decode(secrets.get(n, name)),
    secretsState: (n) => secrets.state(n),
    eventHttpHosts: opts.eventHttpHosts,
  };
}

function decode(secret: V1Secret | undefined): Record<string, Buffer> | undefined {
  if (!secret) return undefined;
  const data: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries(secret.data ?? {})) data[k] = Buffer.from(v, 'base64');
  return data;
}
