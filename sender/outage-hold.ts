// Issue 9: how a sender's job lives through a dependency outage and through shutdown, kept out of
// the chunk worker so the delivery engine can change without touching it.
//
// A PostgreSQL or NATS outage is not a failure of the job. Rather than nak it (each redelivery
// counts towards max_deliver, after which a chunk's devices are recorded failed), the job is held
// — working() keeps JetStream from giving it to another sender — until the dependency answers,
// then worked again. A stopping sender hands it back at once. Waits between retries end early
// when the sender stops, so none outlasts the shutdown grace.
import type { Pool } from '../core/store/db.js';
import type { Bus } from '../core/bus/jetstream.js';

/** How long a job is held through an outage before it is handed back anyway. */
const MAX_OUTAGE_HOLD_MS = 10 * 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a job's work returns: its JetStream decision, or 'outage' to be held and worked again. */
export type HeldResult<R> = R | 'outage';

/** The part of a JetStream message holding uses. */
interface HeldMessage {
  nak(millis?: number): void;
  working(): void;
}

interface HoldDeps {
  pool: Pool;
  bus: Pick<Bus, 'connected'>;
  stopping(): boolean;
}

/** Thrown by pauseUnlessStopping when the sender stops: the job goes back unrecorded (nak). */
export class HandBack extends Error {
  override name = 'HandBack';
}

/** Runs `work` until it returns a decision; holds the job through outages (see above). */
export async function holdThroughOutages<R>(deps: HoldDeps, msg: HeldMessage, work: () => Promise<HeldResult<R>>): Promise<R | 'nak'> {
  const until = Date.now() + MAX_OUTAGE_HOLD_MS;
  for (;;) {
    const result = await work();
    if (result !== 'outage') return result;
    if (deps.stopping() || Date.now() > until || !(await waitForDependencies(deps, msg, until))) {
      msg.nak(1000);
      return 'nak';
    }
  }
}

/**
 * Polls PostgreSQL and the NATS connection once a second, keeping the job; false if stopping.
 * It waits a second first even when both answer, so an outage of another dependency (Redis,
 * for a throttled send) is retried once a second, not in a tight loop.
 */
async function waitForDependencies(deps: HoldDeps, msg: HeldMessage, until: number): Promise<boolean> {
  while (!deps.stopping() && Date.now() < until) {
    try {
      msg.working();
    } catch {
      /* NATS down: the job's AckWait runs on the server, which is down too */
    }
    await sleep(1000);
    if (deps.stopping()) break;
    if (deps.bus.connected?.() === false) continue;
    if (await deps.pool.query('SELECT 1').then(() => true, () => false)) return true;
  }
  return false;
}

/** A wait that ends early with HandBack when the sender stops (checked every 250 ms). */
export async function pauseUnlessStopping(ms: number, stopping: () => boolean): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (stopping()) throw new HandBack('sender stopping');
    await sleep(Math.min(250, until - Date.now()));
  }
}
