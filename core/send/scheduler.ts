// The one scheduler of every periodic delivery duty: firing due scheduled sends, releasing the
// chunks of time-zone sends whose moment has come, and the pause sweep (stopping the sends of apps
// marked overdue, closing stopped sends whose last holder died) and, once a minute beside them, the
// retention of finished sends and of ended Live Activities' tokens and broadcast channels, and the
// dashboard overview's figures (core/overview/duties.ts). Every sender and the controller
// leader run `startScheduler`, but only the process holding a PostgreSQL session advisory lock
// works: leadership needs no Kubernetes (`herald api` + `herald sender`, `herald dev`), moves to
// another process as soon as the holder's connection ends (crash, network), and is per database.
import type pg from 'pg';
import { ownConnection, type Pool } from '../store/db.js';
import type { Bus } from '../bus/jetstream.js';
import type { Logger } from '../log.js';
import { fireDueSends } from './fire-due.js';
import { releaseDueChunks } from '../delivery/timezone.js';
import { stopOverdueSends } from '../delivery/finish.js';
import { outageLog } from '../faults/outage-log.js';
import { isUnavailable } from '../faults/unavailable.js';
import { pruneFinishedSends, type Retention } from './retention.js';
import { dropEndedActivityTokens } from '../live-activities/tokens.js';
import type { ChannelSweep } from '../live-activities/channel-sweep.js';
import { runOverviewDuties } from '../overview/duties.js';

/** Any constant shared by all Herald processes (distinct from the migrator's lock). */
export const SCHEDULER_LOCK = 7_341_111;
const BATCH = 50;

export interface Scheduler {
  /** Whether this process holds the lock (ran the last round). */
  leading(): boolean;
  stop(): Promise<void>;
}

/** One round of every duty (exported for tests; the leader calls it every `everyMs`). */
export async function runDuties(deps: { pool: Pool; bus?: Bus; logger: Logger }): Promise<void> {
  const { pool, bus, logger } = deps;
  const stopped = await stopOverdueSends(pool);
  if (stopped.length) logger.info({ sends: stopped }, 'sends of overdue apps stopped');
  // Drain: a backlog (after an outage) fires in batches without waiting a tick between them.
  for (;;) {
    const fired = await fireDueSends({ pool, bus }, { limit: BATCH });
    for (const f of fired) logger.info({ ...f }, f.error ? 'scheduled send could not fire' : 'scheduled send fired');
    if (fired.length < BATCH) break;
  }
  for (;;) {
    const released = await releaseDueChunks({ pool, bus }, { limit: 500 });
    if (released.length) logger.info({ chunks: released.length }, 'time-zone chunks released');
    if (released.length < 500) break;
  }
}

/** How often the leader prunes finished sends (core/send/retention.ts). */
const PRUNE_EVERY_MS = 60_000;

export interface SchedulerDeps {
  pool: Pool;
  bus?: Bus;
  logger: Logger;
  /** Required, with no default: every process that may lead must apply the operator's settings. */
  retention: Retention;
  /**
   * Deletes the broadcast channels of Live Activities that are over (core/live-activities/channel-sweep.ts);
   * every process that may lead (senders, the controller) passes one built from its APNs settings.
   */
  channels?: ChannelSweep;
}

export function startScheduler(deps: SchedulerDeps, everyMs = 500): Scheduler {
  const log = deps.logger.child({ component: 'scheduler' });
  const lock = new SchedulerLock(deps.pool, log);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  const stop = () => stopped || !lock.leading;

  // Retention is started by a round but not awaited by it: working off a backlog takes up to its
  // budget (seconds of statements, core/send/retention.ts), and the rounds go on meanwhile, so a
  // scheduled send due then fires on time. It stops between statements when this process stops
  // or loses the lock; should two processes prune at once during a hand-over, that is harmless:
  // each statement deletes or marks only rows still there.
  let nextPrune = 0;
  let pruning: Promise<void> | undefined;
  const startPrune = () => {
    if (pruning || Date.now() < nextPrune) return;
    nextPrune = Date.now() + PRUNE_EVERY_MS;
    pruning = runMinuteDuties(deps, log, stop)
      // An outage is the round's to log (it meets the same database).
      .catch((error) => (isUnavailable(error) ? undefined : log.warn({ err: error }, 'retention failed')))
      .finally(() => (pruning = undefined));
  };

  const round = async () => {
    if (!(await lock.lead())) return;
    await runDuties({ ...deps, logger: log });
    startPrune();
  };
  const outage = outageLog(log, 'scheduler'); // an outage is logged once, and its end
  const loop = () => {
    if (stopped) return;
    current = round()
      .then(() => outage.up())
      .catch((error) => (isUnavailable(error) ? outage.down(error) : log.warn({ err: error }, 'scheduler round failed')))
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, everyMs);
      });
  };
  loop();
  return {
    leading: () => lock.leading,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
      await pruning;
      await lock.release();
    },
  };
}

/** Once a minute: retention, ended Live Activities' tokens and channels, the overview's figures; `stop` between them. */
async function runMinuteDuties(deps: SchedulerDeps, log: Logger, stop: () => boolean): Promise<void> {
  const pruned = await pruneFinishedSends(deps.pool, deps.retention, { stop });
  if (pruned.chunks || pruned.opens || pruned.sends || pruned.eventRecords) log.info(pruned, 'finished sends past their retention pruned');
  if (stop()) return;
  if (!pruned.done) log.warn(pruned, 'retention has more rows due than one minute\'s budget: it goes on next minute');
  const tokens = await dropEndedActivityTokens(deps.pool);
  if (tokens) log.info({ tokens }, 'update tokens of ended Live Activities dropped');
  const channels = await deps.channels?.sweep({ stop });
  if (channels?.retired || channels?.deleted || channels?.failed) log.info(channels, 'broadcast channels of ended Live Activities deleted');
  // The dashboard's overview: failure reasons of finished sends, and device counts that are due.
  const overview = await runOverviewDuties(deps.pool, { stop });
  if (overview.sends || overview.apps) log.debug(overview, 'overview figures counted');
}

/**
 * The scheduler's advisory lock, on a connection of its own, outside the pool, kept open: it
 * holds the lock while this process leads, and asks for it each round while it does not.
 */
class SchedulerLock {
  private conn: pg.Client | undefined;
  leading = false;

  constructor(private readonly pool: Pool, private readonly log: Logger) {}

  /** Whether this process leads now: the lock taken, or still held on a live connection. */
  async lead(): Promise<boolean> {
    if (!this.conn) {
      const client = ownConnection(this.pool);
      client.on('error', () => {
        if (this.conn === client) this.drop();
      });
      this.conn = client;
      await client.connect().catch((error) => {
        this.drop();
        throw error;
      });
    }
    if (this.leading) {
      // A lost connection means a lost lock: check it before each round of work.
      await this.conn.query('SELECT 1').catch((error) => {
        this.drop();
        throw error;
      });
      return true;
    }
    this.leading = (await this.conn.query('SELECT pg_try_advisory_lock($1) AS ok', [SCHEDULER_LOCK])).rows[0].ok as boolean;
    if (this.leading) this.log.info('this process now runs the scheduled duties');
    return this.leading;
  }

  /** On stop: the connection ended, and the lock with it. */
  async release(): Promise<void> {
    const c = this.conn;
    this.conn = undefined;
    this.leading = false;
    await c?.end().catch(() => undefined);
  }

  private drop(): void {
    this.conn?.end().catch(() => undefined); // the lock goes with the connection
    this.conn = undefined;
    if (this.leading) this.log.warn('scheduler lock lost with its connection');
    this.leading = false;
  }
}
