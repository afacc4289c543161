// Token buckets with continuous refill, in GCRA form (DECISIONS "Limits": bucket model). A bucket
// is one number, its theoretical arrival time (TAT): the moment it would be full again. A draw
// moves TAT one interval later; it is refused when that would put TAT more than `burst`
// intervals ahead of now. The Lua script (redis-store.ts) is a line-by-line copy of drawOne.
import { intervalMs, type BucketSpec } from './policy.js';
import type { BucketOutcome } from './store.js';

export interface GcraStep {
  outcome: BucketOutcome;
  /** The TAT to store when allowed; undefined when refused (nothing is written). */
  newTat?: number;
}

export function drawOne(spec: BucketSpec, tat: number, now: number): GcraStep {
  const t = intervalMs(spec);
  const base = Math.max(tat, now);
  const newTat = base + t;
  const over = newTat - now - spec.burst * t;
  if (over > 0) {
    return { outcome: { spec, allowed: false, remaining: 0, resetMs: Math.ceil(base - now), retryAfterMs: Math.ceil(over) } };
  }
  const remaining = Math.floor((spec.burst * t - (newTat - now)) / t + 1e-9);
  return { outcome: { spec, allowed: true, remaining, resetMs: Math.ceil(newTat - now), retryAfterMs: 0 }, newTat };
}
