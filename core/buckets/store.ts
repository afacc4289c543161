// The bucket port (ARCHITECTURE "ports"): draw a chain of buckets in order, atomically, stopping
// at the first one that is short. Adapters: Redis (shared by all API replicas, Redis time) and
// memory (one process: `herald dev`, and the fallback while Redis is down). Both run the same
// arithmetic (gcra.ts) and the same contract tests (store.contract.ts).
import type { BucketSpec } from './policy.js';

export interface BucketDraw {
  /** Full storage key, unique per bucket instance (e.g. `<prefix>rl:send:<key id>`). */
  key: string;
  spec: BucketSpec;
}

export interface BucketOutcome {
  spec: BucketSpec;
  allowed: boolean;
  /** Tokens left after this draw (0 when refused). */
  remaining: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
  /** When refused: milliseconds until one token is available; else 0. */
  retryAfterMs: number;
}

export interface ChainResult {
  /** The store's clock at the draw, in Unix milliseconds. */
  nowMs: number;
  /** One outcome per bucket reached, in order; the last one is the refusing bucket when refused. */
  outcomes: BucketOutcome[];
  refused?: BucketOutcome;
}

export interface BucketStore {
  /** Draws one token from each bucket in order; a refused bucket leaves every later one untouched. */
  drawChain(draws: readonly BucketDraw[]): Promise<ChainResult>;
  close(): Promise<void>;
}
