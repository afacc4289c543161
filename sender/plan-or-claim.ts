// A free slot's next piece of work: the oldest unplanned send when one may be waiting (planned in
// its own transaction, planner.ts), else the next chunk (PostgreSQL decides which: claim.ts).
// Planning is looked for after a wake-up from the bus, after an idle round (a wake-up may have been
// lost), after a plan (there may be more) and when a claim says a send waits to be planned.
import type { Pool } from '../core/store/db.js';
import type { Logger } from '../core/log.js';
import { planNext } from '../core/delivery/planner.js';
import { claimNext, type ClaimedChunk, type Lane } from '../core/delivery/claim.js';

export class PlanOrClaim {
  private mayPlan = true;

  constructor(private readonly deps: { pool: Pool; logger: Logger; leaseMs: number; lane?: Lane }) {}

  /** A wake-up from the bus: a send may have been accepted. */
  wake(): void {
    this.mayPlan = true;
  }

  /** 'planned' (a send was planned: the slot is free again), a chunk claimed for one lease, or nothing to do. */
  async next(): Promise<'planned' | ClaimedChunk | undefined> {
    const { pool, lane } = this.deps;
    if (this.mayPlan) {
      this.mayPlan = false;
      const planned = await planNext(pool, lane);
      if (planned) {
        this.mayPlan = true; // there may be more
        this.deps.logger.info({ sendId: planned.sendId, outcome: planned.outcome }, 'send planned');
        return 'planned';
      }
    }
    const claimed = await claimNext(pool, this.deps.leaseMs, lane);
    this.mayPlan ||= !claimed || claimed.unplannedWaiting;
    return claimed;
  }
}
