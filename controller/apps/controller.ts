// Wiring of the App controller: an informer on Apps, one on Secrets (only those an App references
// matter), a keyed work queue, and syncApp as the reconcile. Logic lives in sync.ts.
import type { KubernetesListObject, V1Secret } from '@kubernetes/client-node';
import type { Logger } from '../../core/log.js';
import type { Pool } from '../../core/store/db.js';
import { GROUP, VERSION, keyOf, type KubeClients } from '../kube/client.js';
import type { EventRecorder } from '../kube/events.js';
import { resilientInformer, type ResilientInformer } from '../kube/informer.js';
import { WorkQueue } from '../kube/work-queue.js';
import { syncApp } from './sync.js';
import { APP_PLURAL, type AppObject } from './types.js';

export interface AppControllerOptions {
  clients: KubeClients;
  pool: Pool;
  logger: Logger;
  events: EventRecorder;
  /** '' = every namespace. */
  namespace: string;
  resyncMs: number;
}

export interface AppController {
  informers: { apps: ResilientInformer<AppObject>; secrets: ResilientInformer<V1Secret> };
  queue: WorkQueue;
  /** Starts the caches (both replicas keep them warm). */
  startInformers(): Promise<void>;
  /** Starts reconciling (the leader only). */
  startWorkers(): void;
  stop(): Promise<void>;
}

// Helm keeps whole releases in Secrets and service-account tokens are never credentials: leaving
// them out of the cache keeps the controller's memory small in a busy namespace.
const SECRET_FIELDS = 'type!=helm.sh/release.v1,type!=kubernetes.io/service-account-token';

export function appController(opts: AppControllerOptions): AppController {
  const { clients, namespace, logger } = opts;
  const ns = namespace || undefined;
  const log = logger.child({ controller: 'apps' });
  let workers = false;

  const appPath = ns ? `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${APP_PLURAL}` : `/apis/${GROUP}/${VERSION}/${APP_PLURAL}`;
  const listApps = async () =>
    (ns
      ? await clients.custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: ns, plural: APP_PLURAL })
      : await clients.custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: APP_PLURAL })) as KubernetesListObject<AppObject>;
  const listSecrets = async () =>
    (ns
      ? await clients.core.listNamespacedSecret({ namespace: ns, fieldSelector: SECRET_FIELDS })
      : await clients.core.listSecretForAllNamespaces({ fieldSelector: SECRET_FIELDS })) as KubernetesListObject<V1Secret>;

  const queue = new WorkQueue({
    name: 'apps',
    logger: log,
    concurrency: 2,
    reconcile: (key) =>
      syncApp(
        {
          pool: opts.pool,
          custom: clients.custom,
          core: clients.core,
          events: opts.events,
          logger: log,
          getApp: (n, name) => apps.get(name, n),
          getSecretData: (n, name) => decode(secrets.get(name, n)),
        },
        key,
      ),
  });
  const enqueue = (app: AppObject) => {
    if (workers) queue.add(keyOf(app.metadata));
  };

  const apps: ResilientInformer<AppObject> = resilientInformer<AppObject>({
    kc: clients.kc,
    path: appPath,
    list: listApps,
    logger: log,
    resyncMs: opts.resyncMs,
    onEvent: (_event, app) => enqueue(app),
  });
  const secrets: ResilientInformer<V1Secret> = resilientInformer<V1Secret>({
    kc: clients.kc,
    path: ns ? `/api/v1/namespaces/${ns}/secrets` : '/api/v1/secrets',
    list: listSecrets,
    fieldSelector: SECRET_FIELDS,
    logger: log,
    resyncMs: 24 * 3600_000, // Apps resync themselves and read Secrets from this cache
    onEvent: (event, secret) => {
      if (event === 'resync') return;
      const secretNs = secret.metadata?.namespace;
      for (const app of apps.list(secretNs)) {
        if (app.spec?.credentials?.secretRef?.name === secret.metadata?.name) enqueue(app);
      }
    },
  });

  return {
    informers: { apps, secrets },
    queue,
    async startInformers() {
      // Secrets first, so the first reconcile of an App finds its credentials in the cache.
      await secrets.start();
      await secrets.synced();
      await apps.start();
      await apps.synced();
    },
    startWorkers() {
      workers = true;
      queue.start();
      for (const app of apps.list()) queue.add(keyOf(app.metadata));
    },
    async stop() {
      workers = false;
      await apps.stop();
      await secrets.stop();
      await queue.stop();
    },
  };
}

function decode(secret: V1Secret | undefined): Record<string, Buffer> | undefined {
  if (!secret) return undefined;
  const data: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries(secret.data ?? {})) data[k] = Buffer.from(v, 'base64');
  return data;
}
