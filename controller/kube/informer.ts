// A list-watch cache that keeps itself alive: @kubernetes/client-node's informer stops on the first
// error (apiserver restart, network cut, 5xx); this one restarts it with exponential back-off,
// resuming from the last resourceVersion (a 410 Gone makes the library list again), and hands
// every cached object to onEvent('resync') on a fixed period so that anything missed is reconciled.
import { ListWatch, Watch, type KubeConfig, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from '../../core/log.js';
import { backoffMs } from '../../core/faults/backoff.js';
import { describeKubeError } from './client.js';

export type InformerEvent = 'add' | 'update' | 'delete' | 'resync';

export interface ResilientInformerOptions<T extends KubernetesObject> {
  kc: KubeConfig;
  /** Watch path, e.g. /apis/herald.dev/v1alpha1/namespaces/ns/apps or /api/v1/secrets. */
  path: string;
  list: () => Promise<KubernetesListObject<T>>;
  onEvent: (event: InformerEvent, obj: T) => void;
  logger: Logger;
  /** Period of the resync (every cached object is handed to onEvent('resync')). Default 5 min. */
  resyncMs?: number;
  /** First and largest pause before a restart. Defaults 250 ms and 30 s. */
  backoff?: { initialMs?: number; maxMs?: number };
  labelSelector?: string;
  /** Must match the field selector of `list`. */
  fieldSelector?: string;
}

export interface ResilientInformer<T extends KubernetesObject> {
  start(): Promise<void>;
  stop(): Promise<void>;
  get(name: string, namespace?: string): T | undefined;
  list(namespace?: string): ReadonlyArray<T>;
  /** Resolves once the first list has been loaded into the cache. */
  synced(): Promise<void>;
  /** How many times the watch was restarted after an error (tests, metrics). */
  readonly restarts: number;
}

export function resilientInformer<T extends KubernetesObject>(opts: ResilientInformerOptions<T>): ResilientInformer<T> {
  const backoff = { baseMs: opts.backoff?.initialMs ?? 250, maxMs: opts.backoff?.maxMs ?? 30_000 };
  const informer = new ListWatch<T>(opts.path, new Watch(opts.kc), opts.list, false, opts.labelSelector, opts.fieldSelector);
  const log = opts.logger.child({ informer: opts.path });
  let stopped = true;
  let failures = 0;
  let lastFailure = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  let resyncTimer: NodeJS.Timeout | undefined;
  let restarts = 0;
  let markSynced!: () => void;
  const syncedPromise = new Promise<void>((resolve) => (markSynced = resolve));
  let isSynced = false;
  let failedSinceStart = false;

  informer.on('add', (obj) => opts.onEvent('add', obj));
  informer.on('update', (obj) => opts.onEvent('update', obj));
  informer.on('delete', (obj) => opts.onEvent('delete', obj));
  informer.on('error', (err) => {
    failedSinceStart = true;
    if (stopped) return;
    // A failure long after the previous one starts the back-off afresh.
    if (Date.now() - lastFailure > 60_000) failures = 0;
    lastFailure = Date.now();
    const delay = backoffMs(++failures, backoff);
    log.warn({ err: describeKubeError(err), retryInMs: delay }, 'watch failed; restarting');
    clearTimeout(restartTimer);
    restartTimer = setTimeout(() => void run(true), delay);
  });

  async function run(isRestart: boolean): Promise<void> {
    if (stopped) return;
    if (isRestart) restarts += 1;
    failedSinceStart = false;
    await informer.start();
    // start() resolves after the list (and the watch request) whether or not they failed.
    if (!failedSinceStart && !isSynced) {
      isSynced = true;
      markSynced();
    }
    if (isRestart && !failedSinceStart) log.info('watch restarted');
  }

  return {
    async start() {
      stopped = false;
      await run(false);
      const resyncMs = opts.resyncMs ?? 5 * 60_000;
      resyncTimer = setInterval(() => {
        for (const obj of informer.list()) opts.onEvent('resync', obj);
      }, resyncMs);
      resyncTimer.unref();
    },
    async stop() {
      stopped = true;
      clearTimeout(restartTimer);
      clearInterval(resyncTimer);
      await informer.stop();
    },
    get: (name, namespace) => informer.get(name, namespace),
    list: (namespace) => informer.list(namespace),
    synced: () => syncedPromise,
    get restarts() {
      return restarts;
    },
  };
}
