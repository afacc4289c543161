// The rate-limit headers of an answer (contract "Rate limits"; DECISIONS "Limits": headers): the
// drawn bucket closest to running out, or the refusing bucket, plus one policy entry per bucket drawn.
import { policyEntry } from '../../core/buckets/policy.js';
import type { BucketOutcome, ChainResult } from '../../core/buckets/store.js';

/** The bucket with the fewest tokens left; on a tie, the one that takes longer to refill. */
export function closestToEmpty(outcomes: readonly BucketOutcome[]): BucketOutcome {
  let best = outcomes[0]!;
  for (const o of outcomes.slice(1)) {
    if (o.remaining < best.remaining || (o.remaining === best.remaining && o.resetMs > best.resetMs)) best = o;
  }
  return best;
}

export function retryAfterSeconds(refused: BucketOutcome): number {
  return Math.max(1, Math.ceil(refused.retryAfterMs / 1000));
}

export function rateLimitHeaders(result: ChainResult): Record<string, string> {
  const shown = result.refused ?? closestToEmpty(result.outcomes);
  const resetSeconds = Math.ceil(shown.resetMs / 1000);
  // X-RateLimit-Reset is a Unix time: when the bucket is full, or on a 429 now + Retry-After.
  const unixReset = result.refused
    ? Math.floor(result.nowMs / 1000) + retryAfterSeconds(result.refused)
    : Math.ceil((result.nowMs + shown.resetMs) / 1000);
  const limit = String(shown.spec.burst);
  const remaining = String(shown.remaining);
  return {
    'RateLimit-Limit': limit,
    'RateLimit-Remaining': remaining,
    'RateLimit-Reset': String(resetSeconds),
    'RateLimit-Policy': result.outcomes.map((o) => policyEntry(o.spec)).join(', '),
    'X-RateLimit-Limit': limit,
    'X-RateLimit-Remaining': remaining,
    'X-RateLimit-Reset': String(unixReset),
  };
}
