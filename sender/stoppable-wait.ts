// A wait that a stopping sender cuts short: a throttle or retry back-off never outlasts
// the shutdown grace. lease.ts turns HandBack into handing the chunk back unrecorded.
// (How a chunk lives through a PostgreSQL outage is outage-retry.ts.)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Thrown by pauseUnlessStopping when the sender stops: the chunk goes back unrecorded. */
export class HandBack extends Error {
  override name = 'HandBack';
}

/** A wait that ends early with HandBack when the sender stops (checked every 250 ms). */
export async function pauseUnlessStopping(ms: number, stopping: () => boolean): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (stopping()) throw new HandBack('sender stopping');
    await sleep(Math.min(250, until - Date.now()));
  }
}
