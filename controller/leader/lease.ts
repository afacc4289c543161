// Leader election on a coordination.k8s.io Lease, written by hand: @kubernetes/client-node has no
// leader-election helper (client-go's tools/leaderelection has no JavaScript port we can rely
// on), and the protocol is small. It follows client-go's rules:
// - every write is a replace carrying the resourceVersion we read (optimistic concurrency), so
//   of two candidates racing for a free or expired Lease exactly one wins (the other gets 409);
// - a Lease held by another is taken only when its record has not changed for leaseDuration as
//   measured on *our* clock since we last saw it change (no trust in the other's clock);
// - the leader renews every retryPeriod and gives up — onStoppedLeading — when it has not renewed
//   for renewDeadline (< leaseDuration), so it has stopped before anyone else may take over;
// - on a clean shutdown it releases the Lease (holder cleared), so the other replica takes over
//   at its next try instead of after the full duration.
import { V1MicroTime, type CoordinationV1Api, type V1Lease } from '@kubernetes/client-node';
import type { Logger } from '../../core/log.js';
import { describeKubeError, isConflict, isNotFound } from '../kube/client.js';

export interface LeaderElectorOptions {
  coordination: CoordinationV1Api;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  logger: Logger;
  onStartedLeading(): Promise<void> | void;
  /** Leadership lost (not after release): the process must stop working at once. */
  onStoppedLeading(): void;
}

export interface LeaderElector {
  readonly isLeader: boolean;
  /** Stops trying; a leader releases the Lease. */
  stop(): Promise<void>;
}

export function defaultTimings(leaseDurationSeconds: number): Pick<LeaderElectorOptions, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'> {
  // client-go's defaults are 15 s / 10 s / 2 s; keep the same proportions for other durations.
  const leaseDurationMs = leaseDurationSeconds * 1000;
  return { leaseDurationMs, renewDeadlineMs: Math.round(leaseDurationMs * (2 / 3)), retryPeriodMs: Math.max(250, Math.round(leaseDurationMs / 7.5)) };
}

export function startLeaderElection(opts: LeaderElectorOptions): LeaderElector {
  const log = opts.logger.child({ lease: `${opts.namespace}/${opts.name}`, identity: opts.identity });
  let leader = false;
  let stopped = false;
  let lastRenew = 0;
  let observed: { holder?: string; renew?: string; at: number } = { at: 0 };
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();

  const read = () => opts.coordination.readNamespacedLease({ name: opts.name, namespace: opts.namespace });

  async function tryAcquireOrRenew(): Promise<boolean> {
    const now = new Date();
    let lease: V1Lease;
    try {
      lease = await read();
    } catch (error) {
      if (!isNotFound(error)) throw error;
      return createLease(opts, now);
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const renew = spec.renewTime ? String(spec.renewTime instanceof Date ? spec.renewTime.toISOString() : spec.renewTime) : '';
    if (holder !== observed.holder || renew !== observed.renew) observed = { holder, renew, at: Date.now() };
    const duration = (spec.leaseDurationSeconds ?? Math.ceil(opts.leaseDurationMs / 1000)) * 1000;
    const heldByOther = holder !== '' && holder !== opts.identity;
    if (heldByOther && observed.at + duration > Date.now()) return false;
    return replaceLease(opts, heldBy(opts, lease, now));
  }

  async function round(): Promise<void> {
    if (stopped) return;
    let held = false;
    try {
      held = await tryAcquireOrRenew();
    } catch (error) {
      log.warn({ err: describeKubeError(error) }, 'lease not read or written');
    }
    if (stopped) return;
    if (held) {
      lastRenew = Date.now();
      if (!leader) {
        leader = true;
        log.info('became leader');
        try {
          await opts.onStartedLeading();
        } catch (error) {
          log.error({ err: error }, 'starting leader work failed');
          leader = false;
          opts.onStoppedLeading();
          return;
        }
      }
    } else if (leader && Date.now() - lastRenew > opts.renewDeadlineMs) {
      leader = false;
      log.error('lost the lease (not renewed within the renew deadline)');
      opts.onStoppedLeading();
      return;
    }
    timer = setTimeout(loop, opts.retryPeriodMs);
  }
  const loop = () => {
    inFlight = round();
  };
  loop();

  return {
    get isLeader() {
      return leader;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight.catch(() => undefined);
      if (!leader) return;
      leader = false;
      await releaseLease(opts, log);
    },
  };
}

/** The Lease made, held by us; false when another candidate created it first. */
async function createLease(opts: LeaderElectorOptions, now: Date): Promise<boolean> {
  try {
    await opts.coordination.createNamespacedLease({
      namespace: opts.namespace,
      body: {
        metadata: { name: opts.name, namespace: opts.namespace },
        spec: {
          holderIdentity: opts.identity,
          leaseDurationSeconds: Math.ceil(opts.leaseDurationMs / 1000),
          acquireTime: new V1MicroTime(now.getTime()),
          renewTime: new V1MicroTime(now.getTime()),
          leaseTransitions: 0,
        },
      },
    });
    return true;
  } catch (createError) {
    if (isConflict(createError)) return false; // another candidate created it first
    throw createError;
  }
}

/** `lease` as we write it to hold it from `now`: renewed if ours, taken over (one more transition) if not. */
function heldBy(opts: LeaderElectorOptions, lease: V1Lease, now: Date): V1Lease {
  const spec = lease.spec ?? {};
  const holder = spec.holderIdentity ?? '';
  return {
    ...lease,
    spec: {
      ...spec,
      holderIdentity: opts.identity,
      leaseDurationSeconds: Math.ceil(opts.leaseDurationMs / 1000),
      renewTime: new V1MicroTime(now.getTime()),
      acquireTime: holder === opts.identity && spec.acquireTime ? new V1MicroTime(new Date(spec.acquireTime).getTime()) : new V1MicroTime(now.getTime()),
      leaseTransitions: (spec.leaseTransitions ?? 0) + (holder === opts.identity ? 0 : 1),
    },
  };
}

/** Writes `next`; false when the Lease changed since we read it (409). */
async function replaceLease(opts: LeaderElectorOptions, next: V1Lease): Promise<boolean> {
  try {
    // metadata.resourceVersion from our read makes this a compare-and-swap.
    await opts.coordination.replaceNamespacedLease({ name: opts.name, namespace: opts.namespace, body: next });
    return true;
  } catch (error) {
    if (isConflict(error)) return false;
    throw error;
  }
}

/** On a clean stop: the holder cleared, so the other replica takes over at its next try. */
async function releaseLease(opts: LeaderElectorOptions, log: Logger): Promise<void> {
  try {
    const lease = await opts.coordination.readNamespacedLease({ name: opts.name, namespace: opts.namespace });
    if (lease.spec?.holderIdentity !== opts.identity) return;
    await opts.coordination.replaceNamespacedLease({
      name: opts.name,
      namespace: opts.namespace,
      body: { ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: new V1MicroTime(Date.now()) } },
    });
    log.info('lease released');
  } catch (error) {
    log.warn({ err: describeKubeError(error) }, 'lease not released');
  }
}
