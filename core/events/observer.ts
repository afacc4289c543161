// What the dispatcher tells its caller of each outcome (the sender turns it into metrics: core
// imports no metrics library). The failure kinds are a closed set, fit for a metric label.

export type AttemptFailure = 'http_429' | 'http_503' | 'http_4xx' | 'http_5xx' | 'redirect' | 'no_answer' | 'refused' | 'error';
export const ATTEMPT_FAILURES: readonly AttemptFailure[] = ['http_429', 'http_503', 'http_4xx', 'http_5xx', 'redirect', 'no_answer', 'refused', 'error'];

export interface DispatchObserver {
  /** A batch was accepted: `events` events delivered. */
  delivered(events: number): void;
  /** An attempt at a batch failed. */
  failed(kind: AttemptFailure): void;
}

/** A failed attempt's kind: `refused` when Herald did not send it (its URL is no longer allowed). */
export function attemptFailure(status: number, refused: boolean): AttemptFailure {
  if (refused) return 'refused';
  if (status === 0) return 'no_answer';
  if (status === 429 || status === 503) return `http_${status}`;
  if (status >= 300 && status < 400) return 'redirect';
  return status >= 500 ? 'http_5xx' : 'http_4xx';
}
