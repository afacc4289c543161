// A claimed chunk is this sender's while it renews the chunk's lease, every third of it (claim.ts
// took it for one lease); a sender that dies leaves a lease that runs out, and the chunk is
// claimable again. A chunk that is not recorded goes back one of these ways (docs/delivery.md
// "Senders: the claim loop"):
//
// | why                                                  | claimable again        | the claim counts          |
// | the throttle's turn is far (throttle.ts)             | at its turn            | no                        |
// | the sender stops during a wait (stoppable-wait.ts)   | at once                | only if Apple was asked   |
// | the gateway stayed out past the hold (retry-rounds)  | at once                | only if Apple was asked   |
// | any other error, a database outage past one lease    | after a back-off       | only if Apple was asked   |
//
// "Apple was asked": Apple decided on a device of this chunk. An outage never exhausts a chunk
// (poison.ts counts the claims).
import type { Pool } from '../core/store/db.js';
import type { Logger } from '../core/log.js';
import { handBack, renewLease, type ClaimedChunk } from '../core/delivery/claim.js';
import { backoffMs } from '../core/faults/backoff.js';
import type { SenderMetrics } from './metrics.js';
import { retryThroughOutage } from './outage-retry.js';
import { GatewayUnavailableError } from './retry-rounds.js';
import { HandBack } from './stoppable-wait.js';

/** After an error: 1 s at the first claim, doubling, at most 10 s (if the database is still down, the lease runs out instead). */
const ERROR_BACKOFF = { baseMs: 1000, maxMs: 10_000 };

export class ChunkLease {
  /** Whether Apple decided on a device of this chunk (retry-rounds.ts sets it). */
  askedApple = false;
  private readonly renewal: NodeJS.Timeout;

  constructor(
    private readonly deps: { pool: Pool; metrics: SenderMetrics; leaseMs: number; stopping(): boolean },
    private readonly claimed: ClaimedChunk,
  ) {
    const { pool, leaseMs } = deps;
    this.renewal = setInterval(() => {
      renewLease(pool, claimed.sendId, claimed.chunk, leaseMs).catch(() => undefined);
    }, Math.max(250, Math.floor(leaseMs / 3)));
  }

  /** The chunk was recorded or handed back: no more renewals. */
  release(): void {
    clearInterval(this.renewal);
  }

  /** The throttle's turn is `waitMs` away: back until then, uncounted (through a database outage). */
  async backUntilTurn(waitMs: number): Promise<void> {
    const { pool, metrics, leaseMs, stopping } = this.deps;
    const { sendId, chunk } = this.claimed;
    await retryThroughOutage(() => handBack(pool, sendId, chunk, waitMs, { uncount: true }), { forMs: leaseMs, stopping: () => stopping() });
    metrics.chunks.inc({ result: 'handed_back_throttle' });
  }

  /** The chunk's work ended in `error` before its record: back, as the table above says. */
  async backAfter(error: unknown, log: Logger): Promise<void> {
    const { pool, metrics } = this.deps;
    const { sendId, chunk, claims } = this.claimed;
    let delayMs = 0;
    if (error instanceof HandBack) {
      metrics.chunks.inc({ result: 'handed_back_stopping' });
    } else if (error instanceof GatewayUnavailableError) {
      log.warn({ reason: error.reason, gateway: error.gateway, claims }, `${error.gateway} gateway unavailable past the hold; the chunk is handed back`);
      metrics.chunks.inc({ result: 'handed_back_gateway' });
    } else {
      log.warn({ err: error, claims }, 'chunk failed; it is handed back');
      metrics.chunks.inc({ result: 'handed_back_error' });
      delayMs = backoffMs(claims, ERROR_BACKOFF);
    }
    await handBack(pool, sendId, chunk, delayMs, { uncount: !this.askedApple }).catch(() => undefined);
  }
}
