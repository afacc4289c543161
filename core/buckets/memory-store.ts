// The in-process bucket adapter: `herald dev`, and each API process's fallback while Redis is
// down (limits per process at the same rates; never unlimited). Same arithmetic as Redis (gcra.ts).
import { drawOne } from './gcra.js';
import type { BucketDraw, BucketStore, ChainResult, BucketOutcome } from './store.js';

export interface MemoryBucketStoreOptions {
  /** Unix milliseconds; injected by tests. */
  clock?: () => number;
  /** Full buckets are forgotten once the map holds this many entries. */
  sweepAbove?: number;
}

export class MemoryBucketStore implements BucketStore {
  private readonly tats = new Map<string, number>();
  private readonly clock: () => number;
  private readonly sweepAbove: number;

  constructor(opts: MemoryBucketStoreOptions = {}) {
    this.clock = opts.clock ?? Date.now;
    this.sweepAbove = opts.sweepAbove ?? 100_000;
  }

  async drawChain(draws: readonly BucketDraw[]): Promise<ChainResult> {
    return this.drawChainSync(draws);
  }

  /** Synchronous, hence atomic within the process. */
  drawChainSync(draws: readonly BucketDraw[]): ChainResult {
    const now = this.clock();
    if (this.tats.size > this.sweepAbove) this.sweep(now);
    const outcomes: BucketOutcome[] = [];
    for (const draw of draws) {
      const step = drawOne(draw.spec, this.tats.get(draw.key) ?? 0, now);
      outcomes.push(step.outcome);
      if (step.newTat === undefined) return { nowMs: now, outcomes, refused: step.outcome };
      this.tats.set(draw.key, step.newTat);
    }
    return { nowMs: now, outcomes };
  }

  /** A bucket whose TAT has passed is full: the same as no entry. */
  private sweep(now: number): void {
    for (const [key, tat] of this.tats) if (tat <= now) this.tats.delete(key);
  }

  async close(): Promise<void> {
    this.tats.clear();
  }
}
