// Idempotent retries across every API replica (contract "Idempotency"; ARCHITECTURE invariant: a
// key sends at most once per app in 24 hours). The claim is a PostgreSQL row, not process memory:
//   1. claim: insert (app, key) as `running`, or take over a row that expired (24 h) or whose
//      claim was abandoned (a crashed process; older than the lease);
//   2. the owner creates the send; the row turns `done` with the answer in the send's own
//      transaction, only if the claim is still the owner's, so key and send commit together;
//   3. a call that failed before recording anything deletes its `running` claim: the key is free;
//   4. anyone else replays a `done` row with the same fingerprint, refuses another fingerprint
//      (422), and waits up to 5 s for a `running` one before answering 409.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Pool, PoolClient } from '../store/db.js';
import type { CreatedSend } from '../send-model/response.js';
import { ConflictError, ValidationError } from '../errors.js';
import { requestFingerprint } from './fingerprint.js';

export const KEY_REUSED = 'This idempotency key was already used with a different request.';

export interface PgIdempotencyGuardOptions {
  /** Clock of the 24-hour expiry and the claim lease; injected by tests. */
  clock?: () => Date;
  /** How long a repeat waits for a running first call (contract: 5 s). */
  waitMs?: number;
  /** How long a key is kept (contract: 24 hours). */
  ttlMs?: number;
  /** A `running` claim older than this was abandoned by a crashed process and may be taken over. */
  leaseMs?: number;
  /** Pause between two looks at a running claim. */
  pollMs?: number;
}

type Create = (withinTransaction: (db: PoolClient, created: CreatedSend) => Promise<void>) => Promise<CreatedSend>;

export class PgIdempotencyGuard {
  private readonly clock: () => Date;
  private readonly waitMs: number;
  private readonly ttlMs: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;

  constructor(private readonly pool: Pool, opts: PgIdempotencyGuardOptions = {}) {
    this.clock = opts.clock ?? (() => new Date());
    this.waitMs = opts.waitMs ?? 5_000;
    this.ttlMs = opts.ttlMs ?? 24 * 3600_000;
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.pollMs = opts.pollMs ?? 50;
  }

  async run(appId: string, key: string, fingerprint: unknown, create: Create): Promise<{ created: CreatedSend; replayed: boolean }> {
    const fp = requestFingerprint(fingerprint);
    const deadline = performance.now() + this.waitMs;
    for (;;) {
      const claim = await this.claim(appId, key, fp);
      if (claim) return { created: await this.runOwned(appId, key, claim, create), replayed: false };

      const res = await this.pool.query<{ fingerprint: Buffer; state: string; response: CreatedSend | null }>(
        'SELECT fingerprint, state, response FROM idempotency_keys WHERE app_id = $1 AND key = $2',
        [appId, key],
      );
      const row = res.rows[0];
      if (!row) continue; // the first call failed and freed the key: claim it again
      if (!row.fingerprint.equals(fp)) throw new ValidationError(KEY_REUSED);
      if (row.state === 'done' && row.response) return { created: row.response, replayed: true };
      const left = deadline - performance.now();
      if (left <= 0) throw new ConflictError(undefined, { retryAfterSeconds: 1 });
      await new Promise((resolve) => setTimeout(resolve, Math.min(this.pollMs, left)));
    }
  }

  /**
   * The first answer of a finished, unexpired key with this fingerprint, else undefined (then `run`
   * decides). Read before a send's template is applied (core/send/accept.ts): a repeat must replay
   * even when the template it named has been deleted since.
   */
  async recorded(appId: string, key: string, fingerprint: unknown): Promise<CreatedSend | undefined> {
    const res = await this.pool.query<{ response: CreatedSend | null }>(
      `SELECT response FROM idempotency_keys
        WHERE app_id = $1 AND key = $2 AND fingerprint = $3 AND state = 'done' AND expires_at > $4`,
      [appId, key, requestFingerprint(fingerprint), this.clock()],
    );
    return res.rows[0]?.response ?? undefined;
  }

  /** Returns the claim id when this call now owns the key, else undefined. */
  private async claim(appId: string, key: string, fp: Buffer): Promise<string | undefined> {
    const claim = randomUUID();
    const now = this.clock();
    const res = await this.pool.query(
      `INSERT INTO idempotency_keys AS k (app_id, key, fingerprint, state, claim, claimed_at, expires_at)
       VALUES ($1, $2, $3, 'running', $4, $5, $6)
       ON CONFLICT (app_id, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, state = 'running', claim = EXCLUDED.claim,
             claimed_at = EXCLUDED.claimed_at, send_id = NULL, response = NULL, expires_at = EXCLUDED.expires_at
         WHERE k.expires_at <= $5 OR (k.state = 'running' AND k.claimed_at <= $7)`,
      [appId, key, fp, claim, now, new Date(now.getTime() + this.ttlMs), new Date(now.getTime() - this.leaseMs)],
    );
    return res.rowCount === 1 ? claim : undefined;
  }

  private async runOwned(appId: string, key: string, claim: string, create: Create): Promise<CreatedSend> {
    try {
      return await create(async (db, created) => {
        const done = await db.query(
          `UPDATE idempotency_keys SET state = 'done', send_id = $4, response = $5
            WHERE app_id = $1 AND key = $2 AND claim = $3 AND state = 'running'`,
          [appId, key, claim, created.body.id, JSON.stringify(created)],
        );
        // Taken over after the lease: the other call owns the key now, so this send must not commit.
        if (done.rowCount !== 1) throw new ConflictError(undefined, { retryAfterSeconds: 1 });
      });
    } catch (error) {
      await this.pool
        .query(`DELETE FROM idempotency_keys WHERE app_id = $1 AND key = $2 AND claim = $3 AND state = 'running'`, [appId, key, claim])
        .catch(() => undefined); // a lost claim is taken over after the lease
      throw error;
    }
  }

  /** Deletes keys past their 24 hours, a batch at a time; returns how many went. */
  async sweepExpired(batch = 5_000): Promise<number> {
    const res = await this.pool.query(
      `DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2))`,
      [this.clock(), batch],
    );
    return res.rowCount ?? 0;
  }
}
