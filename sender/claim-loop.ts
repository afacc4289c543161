// The loop that keeps a sender's slots busy: while a slot is free it asks for the next piece of
// work (a send to plan, else a chunk to deliver: claimed in PostgreSQL, chunk-worker.ts); with
// none it waits for a wake-up on the bus or its poll interval, whichever comes first. It never
// takes more than it has free slots, so a stopping sender has nothing to hand back.
import type { Logger } from '../core/log.js';
import { backoffMs } from '../core/faults/backoff.js';

export type Work = () => Promise<void>;

/** Taking work failed (the database is down): 100 ms, doubling, at most 2 s between tries. */
const TAKE_BACKOFF = { baseMs: 100, maxMs: 2000 };

export interface ClaimLoop {
  /** A wake-up from the bus: work may be available. */
  wake(): void;
  /** Stops taking work; resolves when every piece taken has ended. */
  stop(): Promise<void>;
  active(): number;
}

export function runClaimLoop(opts: { concurrency: number; logger: Logger; next: () => Promise<Work | undefined>; idlePollMs: number }): ClaimLoop {
  const { logger, concurrency } = opts;
  let stopping = false;
  let active = 0;
  let woken = false;
  let nudge: (() => void) | undefined;
  const idle: Array<() => void> = [];

  const signal = () => {
    const n = nudge;
    nudge = undefined;
    n?.();
  };
  /** Resolves on a wake-up, a freed slot, stop, or after `ms`. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => signal(), ms);
      nudge = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const release = () => {
    active--;
    signal();
    if (active === 0) for (const done of idle.splice(0)) done();
  };

  const loop = (async () => {
    let failures = 0;
    while (!stopping) {
      if (active >= concurrency) {
        await pause(60_000);
        continue;
      }
      woken = false;
      let work: Work | undefined;
      try {
        work = await opts.next();
        failures = 0;
      } catch (error) {
        failures++;
        if (failures === 1 || failures % 20 === 0) logger.warn({ err: error, failures }, 'taking work failed; retrying');
        await pause(backoffMs(failures, TAKE_BACKOFF));
        continue;
      }
      if (!work) {
        // A wake-up that came while we looked may announce work we did not see: look again.
        if (!woken && !stopping) await pause(opts.idlePollMs);
        continue;
      }
      active++;
      work()
        .catch((error) => logger.error({ err: error }, 'work handler threw'))
        .finally(release);
    }
  })();

  return {
    active: () => active,
    wake() {
      woken = true;
      signal();
    },
    async stop() {
      stopping = true;
      signal();
      await loop;
      if (active > 0) await new Promise<void>((r) => idle.push(r));
    },
  };
}
