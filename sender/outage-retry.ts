// A database outage while a sender works a chunk is waited out holding the chunk: the step that
// failed is tried again, with back-off, for at most one lease, so a short outage costs no second
// delivery of the chunk's devices (docs/decisions.md "senders through an outage"). Past that, or
// once the sender stops, the error goes on and the chunk is handed back (lease.ts).
import { backoffMs } from '../core/faults/backoff.js';

/** 200 ms doubling, at most 2 s: a restarted PostgreSQL is found within 2 s of its return. */
const OUTAGE_BACKOFF = { baseMs: 200, maxMs: 2000 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `step` until it succeeds, for at most `forMs`, or until the sender stops. */
export async function retryThroughOutage<T>(step: () => Promise<T>, opts: { forMs: number; stopping(): boolean }): Promise<T> {
  const until = Date.now() + opts.forMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (Date.now() >= until || opts.stopping()) throw error;
      await sleep(backoffMs(attempt, OUTAGE_BACKOFF));
    }
  }
}
