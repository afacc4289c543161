// How long to wait before trying again what just failed: the first wait, doubling with each
// attempt, never past a cap. One rule for every retry in the house (a device Apple asked to retry,
// a chunk handed back after an error, a step retried through a database outage, the controller's
// work queue and informer restarts); each caller names its own first wait and cap.

export interface Backoff {
  /** The wait before the first retry. */
  baseMs: number;
  /** No wait is longer. */
  maxMs: number;
}

/**
 * The wait before retry `attempt` (1 = the first): baseMs × 2^(attempt − 1), at most maxMs. With
 * `jitter` (a random number in [0, 1)) the wait falls anywhere in its upper half, so many devices
 * retried at the same moment do not all come back at the same moment.
 */
export function backoffMs(attempt: number, { baseMs, maxMs }: Backoff, jitter?: () => number): number {
  const wait = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return jitter ? Math.round(wait / 2 + jitter() * (wait / 2)) : wait;
}
