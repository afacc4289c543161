// Delivers recorded events to the apps' webhook destinations (docs/events.md "Delivery"). Every
// sender runs one, beside its delivery loops and never in them: a few lanes, each taking one
// destination at a time with a lease (`FOR UPDATE SKIP LOCKED`, least recently served first), so
// a destination that is slow or down holds a lane for at most PATIENCE_MS (its request goes on
// alone to its deadline) and is then set aside until its back-off ends, while the lanes (and
// other senders) serve the other destinations. At least once: a batch is posted until a 2xx,
// with the same webhook-id, and only then is the destination's place moved past it.
import type { Logger } from '../log.js';
import type { Pool } from '../store/db.js';
import { isUnavailable } from '../faults/unavailable.js';
import { outageLog } from '../faults/outage-log.js';
import { backoffMs, type Backoff } from '../faults/backoff.js';
import { nextBatch, type Batch, type Place } from './batch.js';
import { claimDestination, claimReplay, moveTo, release, type Claimed } from './destination-lease.js';
import { openSigningSecret } from './destinations.js';
import { destinationUrlProblem } from './destination-url.js';
import { postBatch } from './post.js';
import type { Dialer } from '../net/dialer.js';
import { signatureHeaders } from './sign.js';
import { publishEvents, STREAM_DESTINATION } from './stream.js';
import type { Bus } from '../bus/jetstream.js';
import { attemptFailure, type AttemptFailure, type DispatchObserver } from './observer.js';

export interface DispatcherOptions {
  pool: Pool;
  logger: Logger;
  /** HERALD_EVENT_HTTP_HOSTS: checked again before each request (the setting may have changed). */
  httpHosts: readonly string[];
  /** The way out (HTTPS_PROXY, NO_PROXY: core/net/dialer.ts); direct when absent. */
  dialer?: Dialer;
  /** Destinations served at once by this process. */
  lanes?: number;
  /** Events per request. */
  batchSize?: number;
  /** The deadline of one request (ms). */
  timeoutMs?: number;
  /** Between failed attempts at a batch; jittered. */
  backoff?: Backoff;
  /** How often an idle lane looks for work (ms). */
  idleMs?: number;
  /** The NATS connection the apps' streams are published on (core/events/stream.ts); absent: their batches fail and wait. */
  stream?: Bus;
  /** Told of each outcome (the sender's metrics). */
  observer?: DispatchObserver;
  /**
   * Whether this process is delivering pushes now (chunks in flight). Events yield to them: while
   * it is, one lane serves, a batch at a time and at most one per YIELD_MS (docs/events.md
   * "Delivery"). Absent: never busy.
   */
  busy?: () => boolean;
}

/** Destinations one sender serves at once. */
export const EVENT_LANES = 4;
/** 500 events (one chunk's, about 200 kB): 2,000 requests for a 1,000,000-device send. */
export const DEFAULT_BATCH_SIZE = 500;
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Doubling from 1 s to 10 minutes, jittered (a capped wait is 5 to 10 minutes): a receiver down for a day is tried about 200 times, never given up. */
export const DEFAULT_EVENT_BACKOFF: Backoff = { baseMs: 1000, maxMs: 600_000 };
/** The longest Retry-After honoured (a receiver asking for a week is tried again in an hour). */
const MAX_RETRY_AFTER_MS = 3_600_000;
/** A destination served longer than this (a receiver that hangs) lets its lane go on to others. */
const PATIENCE_MS = 1_000;
/** Destinations set aside that way at once per process (each holds at most one batch, ≈200 kB);
 *  past it a lane waits for its own. */
const MAX_SET_ASIDE = 64;
/**
 * Deliveries first: while the sender delivers pushes, its events go one batch at a time, at most
 * four a second (about 2,000 events a second per sender), so a million events recorded by a
 * broadcast neither double its time to Apple on the same cores nor wait for its end; the rest
 * goes at full speed once the sender is idle (docs/benchmarks.md "Event streams").
 */
export const YIELD_MS = 250;

export interface EventDispatcher {
  /** Runs the lanes until stopped. */
  stop(): Promise<void>;
  /** One destination's one step (claim, post, record), for tests; false: nothing to do. */
  step(): Promise<boolean>;
}

/** What serving a destination needs: the options with their defaults, and what this process has seen. */
interface Dispatch {
  opts: DispatcherOptions;
  size: number;
  timeoutMs: number;
  backoff: Backoff;
  /** Records passed over as unexpandable by this process (logged with each batch that meets one). */
  poisoned: number;
}

export function startEventDispatcher(opts: DispatcherOptions, run = true): EventDispatcher {
  const { pool, logger } = opts;
  const dispatch: Dispatch = { opts, size: opts.batchSize ?? DEFAULT_BATCH_SIZE, timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, backoff: opts.backoff ?? DEFAULT_EVENT_BACKOFF, poisoned: 0 };
  let stopped = false;
  const idle = new Set<() => void>();

  /** Every other claim looks at replays first: live events and replays share the lanes, neither starves. */
  let turn = 0;
  const claimNext = async () => ((turn++ & 1) === 0 ? ((await claimDestination(pool)) ?? (await claimReplay(pool))) : ((await claimReplay(pool)) ?? (await claimDestination(pool))));

  /** Served past PATIENCE_MS and still going: each holds its destination's lease, not a lane. */
  const setAside = new Set<Promise<void>>();

  // `patient`: once serving outlives PATIENCE_MS the lane returns and the request goes on alone
  // (to its deadline, then back-off as ever). A hanging receiver must not hold a lane for its
  // whole deadline: one app may name 10 destinations, and as many hanging as a sender has lanes
  // stopped every other app's events for a deadline at a time (test/faults/events-isolation.test.ts).
  const take = async (patient: boolean): Promise<boolean> => {
    const d = await claimNext();
    if (!d) return false;
    const work = serve(dispatch, d).catch((error) =>
      // A failure after the claim (a record that cannot be read, a secret sealed with a key this
      // process was not given) is the destination's, like an HTTP failure: backed off and shown on
      // its row, not retried every minute when the lease runs out.
      fail(dispatch, d, error instanceof Error ? error.message : String(error), 'error'),
    );
    if (!patient || setAside.size >= MAX_SET_ASIDE) {
      await work;
      return true;
    }
    if (await outlives(work, PATIENCE_MS)) {
      const aside: Promise<void> = work.catch((error) => logger.warn({ err: error }, 'event dispatch step failed')).finally(() => setAside.delete(aside));
      setAside.add(aside);
    }
    return true;
  };

  const outage = outageLog(logger, 'PostgreSQL (event dispatch)');
  const lane = async (index: number) => {
    while (!stopped) {
      const yielding = opts.busy?.() ?? false;
      // Deliveries first: while the sender delivers, only lane 0 serves events.
      if (yielding && index > 0) {
        await rest(idle, opts.idleMs ?? 1000);
        continue;
      }
      let worked = false;
      try {
        worked = await take(true);
        outage.up();
      } catch (error) {
        // A database away fails every lane's every step: said once per outage, not twice a second.
        if (isUnavailable(error)) outage.down(error);
        else logger.warn({ err: error }, 'event dispatch step failed');
      }
      if (stopped) break;
      if (!worked) await rest(idle, opts.idleMs ?? 1000);
      else if (yielding) await rest(idle, YIELD_MS);
    }
  };
  const lanes = run ? Array.from({ length: opts.lanes ?? EVENT_LANES }, (_, index) => lane(index)) : [];
  return {
    step: () => take(false),
    async stop() {
      stopped = true;
      for (const wake of [...idle]) wake();
      await Promise.all(lanes);
      await Promise.all([...setAside]);
    },
  };
}

/** Whether `work` is still going after `ms`. */
async function outlives(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work.then(() => false), new Promise<true>((resolve) => (timer = setTimeout(() => resolve(true), ms)))]).finally(() => clearTimeout(timer));
}

/** Waits `ms`, or less if one of the `idle` wakers (the dispatcher's stop) is called. */
function rest(idle: Set<() => void>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      idle.delete(wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    idle.add(wake);
  });
}

/** A failed attempt at the destination's batch: counted, backed off, its error kept on the row. */
async function fail(dispatch: Dispatch, d: Claimed, error: string, kind: AttemptFailure, atLeastMs = 0): Promise<void> {
  dispatch.opts.observer?.failed(kind);
  const attempts = d.attempts + 1;
  const waitMs = Math.max(backoffMs(attempts, dispatch.backoff, Math.random), atLeastMs);
  if (attempts === 1) dispatch.opts.logger.warn({ app: d.app_id, destination: d.name, replay: d.replay_id, error }, 'event destination failed; retrying with back-off');
  await release(dispatch.opts.pool, d, `attempts = $4, retry_at = clock_timestamp() + make_interval(secs => $5::double precision / 1000), last_error = $6, failing_since = coalesce(failing_since, clock_timestamp())`, [attempts, waitMs, error]);
}

/** One batch of the claimed destination: read, sent, and its place moved on or its failure recorded. */
async function serve(dispatch: Dispatch, d: Claimed): Promise<void> {
  const { opts } = dispatch;
  const from: Place = { through: Number(d.delivered_through), offset: d.delivered_offset };
  // A replay's batches carry webhook-ids of their own (its id in the name): the same events under
  // a repeated webhook-id would be dropped by a receiver deduplicating on it.
  const last = d.replay_last === undefined ? undefined : Number(d.replay_last);
  const batch = await nextBatch(opts.pool, d.app_id, d.replay_id ? `${d.name}#replay-${d.replay_id}` : d.name, from, d.kinds, dispatch.size, last);
  if (!batch) {
    // A replay whose range has no record left (retention took the rest) is done.
    await release(opts.pool, d, d.replay_id ? 'finished_at = clock_timestamp()' : 'attempts = attempts', []);
    return;
  }
  if (batch.poisoned.length) {
    dispatch.poisoned += batch.poisoned.length;
    opts.logger.error({ app: d.app_id, destination: d.name, records: batch.poisoned, skippedSoFar: dispatch.poisoned }, 'event records that cannot be expanded were passed over');
  }
  if (!batch.events.length) {
    // Nothing of its kinds in these records: its place moves on without a request.
    await release(opts.pool, d, ...moveTo(d, batch.next));
    return;
  }
  const problem = destinationUrlProblem(d.url, opts.httpHosts);
  const result = await deliver(dispatch, d, batch, problem);
  if (result.status >= 200 && result.status < 300) {
    await release(opts.pool, d, ...moveTo(d, batch.next, batch.events.length));
    opts.observer?.delivered(batch.events.length);
    // It goes on from where it stopped (its place never moved while it failed).
    if (d.failing_since && !d.replay_id) opts.logger.info({ app: d.app_id, destination: d.name, failingForMs: Date.now() - d.failing_since.getTime(), attempts: d.attempts }, 'event destination recovered');
    return;
  }
  const honoured = (result.status === 429 || result.status === 503) && result.retryAfterMs !== undefined ? Math.min(result.retryAfterMs, MAX_RETRY_AFTER_MS) : 0;
  const error = result.status ? `HTTP ${result.status}${result.status >= 300 && result.status < 400 ? ' (redirects are not followed)' : ''}` : (result.error ?? 'no answer');
  await fail(dispatch, d, error, attemptFailure(result.status, problem !== undefined), honoured);
}

/** The batch sent to the destination: published to the app's stream, refused for its URL, or posted signed. */
async function deliver(dispatch: Dispatch, d: Claimed, batch: Batch, problem: string | undefined): Promise<{ status: number; error?: string; retryAfterMs?: number }> {
  const { opts } = dispatch;
  // The app's stream (spec.events.stream) is a destination like the others, published to NATS.
  if (d.name === STREAM_DESTINATION) return { ...(await publishEvents(opts.stream, batch.events)), retryAfterMs: undefined };
  if (problem) return { status: 0, error: problem, retryAfterMs: undefined };
  const body = JSON.stringify(batch.events);
  return postBatch(d.url, signatureHeaders(openSigningSecret(d.app_id, d.secret), batch.webhookId, Math.floor(Date.now() / 1000), body), body, { timeoutMs: dispatch.timeoutMs, httpHosts: opts.httpHosts, dialer: opts.dialer });
}
