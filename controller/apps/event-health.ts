// The App's view of its event destinations' delivery (issue 28 point 3; docs/events.md "When a
// destination keeps failing"): the condition EventDestinationsHealthy, the one-word summary that
// `kubectl get apps` shows, and a watch that reconciles an App when one of its destinations
// changes state, since nothing in Kubernetes changes when a receiver goes down.
import type { Logger } from '../../core/log.js';
import type { Pool } from '../../core/store/db.js';
import { BACKLOG_COUNT_CAP, destinationStatesByApp, FAILING_AFTER_MS, type DestinationHealth } from '../../core/events/health.js';
import type { ConditionInput } from '../kube/conditions.js';

export const EVENTS_HEALTHY = 'EventDestinationsHealthy';
/** Retention's drops keep the condition False this long after the last one (then only its message says so). */
export const DROPS_SHOWN_MS = 24 * 3600_000;

const count = (n: number) => n.toLocaleString('en-US');
const backlog = (h: DestinationHealth) => (h.backlogRecords >= BACKLOG_COUNT_CAP ? `${count(BACKLOG_COUNT_CAP)} or more records` : `${count(h.backlogRecords)} record${h.backlogRecords === 1 ? '' : 's'}`);

/** What `kubectl get apps` shows in its Events column: `ok`, or the names failing (else retrying). */
export function eventsSummary(health: readonly DestinationHealth[]): string {
  const named = (state: DestinationHealth['state']) => health.filter((h) => h.state === state).map((h) => h.name);
  const failing = named('failing');
  if (failing.length) return `failing: ${failing.join(',')}`;
  const retrying = named('retrying');
  return retrying.length ? `retrying: ${retrying.join(',')}` : 'ok';
}

/** The condition for an App's destinations, read from PostgreSQL (core/events/health.ts). */
export function eventsHealthCondition(health: readonly DestinationHealth[], now: Date): ConditionInput {
  const failing = health.filter((h) => h.state === 'failing');
  const dropped = health.filter((h) => h.droppedEvents > 0 || h.droppedRecords > 0);
  const recentDrops = dropped.filter((h) => h.lastDroppedAt && now.getTime() - h.lastDroppedAt.getTime() < DROPS_SHOWN_MS);
  const dropNote = dropped.length
    ? ` Retention removed events before their destination had them (older than HERALD_CHUNK_RETENTION_DAYS): ${dropped
        .map((h) => `${h.name} ${count(h.droppedEvents)} events in ${count(h.droppedRecords)} records, last on ${h.lastDroppedAt?.toISOString()}`)
        .join('; ')}.`
    : '';
  if (failing.length) {
    const each = failing.map((h) => `${h.name} since ${h.failingSince!.toISOString()} (${count(h.attempts)} attempts, last error: ${h.lastError ?? 'none'}; ${backlog(h)} waiting)`);
    return {
      type: EVENTS_HEALTHY,
      status: 'False',
      reason: 'DestinationFailing',
      message: `Failing for ${FAILING_AFTER_MS / 60_000} minutes or more: ${each.join('; ')}. Their events wait and are retried with back-off; each goes on from where it stopped once its receiver answers 2xx. Pushes are not affected.${dropNote}`,
    };
  }
  if (recentDrops.length) return { type: EVENTS_HEALTHY, status: 'False', reason: 'EventsDropped', message: `No destination is failing.${dropNote}` };
  const retrying = health.filter((h) => h.state === 'retrying');
  const delivering = `${health.length} event destination${health.length === 1 ? '' : 's'} delivering`;
  return {
    type: EVENTS_HEALTHY,
    status: 'True',
    reason: 'Delivering',
    message: retrying.length ? `${delivering}; retrying after a failed attempt: ${retrying.map((h) => `${h.name} (${h.lastError ?? 'no answer'})`).join(', ')}.${dropNote}` : `${delivering}.${dropNote}`,
  };
}

export interface HealthWatch {
  stop(): Promise<void>;
}

/**
 * Every `everyMs`, one read of every destination's state (a short line per app); an app whose line
 * changed is handed to `changed` (the App controller enqueues its App). The first read hands over
 * every app with destinations.
 */
export function watchDestinationHealth(opts: { pool: Pool; logger: Logger; everyMs: number; changed(appId: string): void }): HealthWatch {
  let seen = new Map<string, string>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  const tick = async () => {
    try {
      const now = await destinationStatesByApp(opts.pool);
      for (const [app, line] of now) if (seen.get(app) !== line) opts.changed(app);
      seen = now;
    } catch (error) {
      opts.logger.debug({ err: error }, 'event destination states not read; trying again');
    }
    if (!stopped) timer = setTimeout(() => void (round = tick()), opts.everyMs);
  };
  round = tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await round;
    },
  };
}
