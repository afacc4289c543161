// Secrets of the namespaces that hold Apps, and of no others. One informer per such
// namespace, started when its first App is seen, so the controller needs no permission to list
// Secrets cluster-wide: the chart grants it namespace by namespace (controller.appNamespaces).
// A namespace whose Secrets cannot be listed is reported on its Apps after a grace period,
// instead of a cache that never fills.
import type { KubernetesListObject, V1Secret } from '@kubernetes/client-node';
import type { Logger } from '../../core/log.js';
import type { KubeClients } from '../kube/client.js';
import { resilientInformer, type ResilientInformer } from '../kube/informer.js';

// Helm keeps whole releases in Secrets and service-account tokens are never credentials: leaving
// them out of the cache keeps the controller's memory small in a busy namespace.
const SECRET_FIELDS = 'type!=helm.sh/release.v1,type!=kubernetes.io/service-account-token';
/** How long a namespace's first list may take before its Secrets count as unreadable. */
const UNREADABLE_AFTER_MS = 10_000;

export type SecretsState = 'ready' | 'waiting' | 'unreadable';

export interface SecretCaches {
  /** Starts the namespace's cache if needed; `onSynced` runs once its first list is in. */
  watch(namespace: string, onSynced: () => void): void;
  state(namespace: string): SecretsState;
  get(namespace: string, name: string): V1Secret | undefined;
  /** Watch restarts over every namespace (metrics). */
  readonly restarts: number;
  stop(): Promise<void>;
}

export function secretCaches(opts: {
  clients: KubeClients;
  logger: Logger;
  onSecret: (namespace: string, name: string) => void;
  now?: () => number;
}): SecretCaches {
  const now = opts.now ?? Date.now;
  const caches = new Map<string, { informer: ResilientInformer<V1Secret>; since: number; synced: boolean }>();
  return {
    watch(namespace, onSynced) {
      if (caches.has(namespace)) return;
      const informer = resilientInformer<V1Secret>({
        kc: opts.clients.kc,
        path: `/api/v1/namespaces/${namespace}/secrets`,
        list: async () =>
          (await opts.clients.core.listNamespacedSecret({ namespace, fieldSelector: SECRET_FIELDS })) as KubernetesListObject<V1Secret>,
        fieldSelector: SECRET_FIELDS,
        logger: opts.logger,
        resyncMs: 24 * 3600_000, // Apps resync themselves and read Secrets from this cache
        onEvent: (event, secret) => {
          if (event !== 'resync' && secret.metadata?.name) opts.onSecret(namespace, secret.metadata.name);
        },
      });
      const entry = { informer, since: now(), synced: false };
      caches.set(namespace, entry);
      void informer.start().catch((error) => opts.logger.warn({ err: error, namespace }, 'secret watch did not start'));
      void informer.synced().then(() => {
        entry.synced = true;
        onSynced();
      });
    },
    state(namespace) {
      const entry = caches.get(namespace);
      if (entry?.synced) return 'ready';
      return entry && now() - entry.since > UNREADABLE_AFTER_MS ? 'unreadable' : 'waiting';
    },
    get: (namespace, name) => (caches.get(namespace)?.synced ? caches.get(namespace)!.informer.get(name, namespace) : undefined),
    get restarts() {
      let n = 0;
      for (const { informer } of caches.values()) n += informer.restarts;
      return n;
    },
    async stop() {
      await Promise.all([...caches.values()].map(({ informer }) => informer.stop()));
    },
  };
}
