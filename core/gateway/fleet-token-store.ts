// The production FleetTokenSource (fleet-token.ts): a gateway credential's token kept sealed in
// PostgreSQL (migration 060), read by every process, minted by whichever finds none valid
// (issue 37). Minting happens inside a transaction holding a transaction-scoped advisory lock on
// the credential, so N processes racing mint exactly one and the rest read it; a transaction lock
// (not a session one) works behind PgBouncer in transaction mode. Ages are the database's clock,
// the one clock every process shares.
import type { Pool, Queryable } from '../store/db.js';
import { inTransaction } from '../store/db.js';
import { seal, sealContext, unseal, SealError } from '../secrets/seal.js';
import type { FleetToken, FleetTokenSource } from './fleet-token.js';
import type { FleetTokenPolicy } from './fleet-token-policy.js';

export { APNS_TOKEN_POLICY, FCM_TOKEN_POLICY, type FleetTokenPolicy } from './fleet-token-policy.js';

export interface FleetTokenKey {
  kind: 'apns' | 'fcm';
  /** Names the credential, never carries it (a team and key id, a service account's email). */
  identity: string;
}

export interface FleetTokenStoreOptions {
  /** Makes a new token's value (signs a JWT, asks Google). Called at most once per replacement. */
  mint(): Promise<string>;
  policy: FleetTokenPolicy;
  /** Told of every token this process minted (a counter, a log line: never the value). */
  minted?(key: FleetTokenKey, why: 'none' | 'due' | 'refused'): void;
}

interface Row {
  token: FleetToken;
  ageMs: number;
}

export class StoredFleetToken implements FleetTokenSource {
  private readonly context: string;

  constructor(
    private readonly pool: Pool,
    readonly key: FleetTokenKey,
    private readonly opts: FleetTokenStoreOptions,
  ) {
    this.context = sealContext('fleet_tokens', 'token', `${key.kind}:${key.identity}`);
  }

  async current(): Promise<FleetToken> {
    const row = await this.read(this.pool);
    if (row && row.ageMs < this.opts.policy.renewAfterMs) return row.token;
    return this.replace(row?.token.value, row ? 'due' : 'none');
  }

  async renew(stale: FleetToken): Promise<FleetToken> {
    const row = await this.read(this.pool);
    // Another process replaced it already, or the gateway's minimum age forbids a newer one yet.
    if (row && (row.token.value !== stale.value || row.ageMs < this.opts.policy.minAgeMs)) return row.token;
    return this.replace(stale.value, 'refused');
  }

  /** Mints unless, once the lock is held, the row read shows another process did meanwhile. */
  private replace(seen: string | undefined, why: 'none' | 'due' | 'refused'): Promise<FleetToken> {
    const { policy } = this.opts;
    return inTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`fleet_tokens:${this.key.kind}:${this.key.identity}`]);
      const row = await this.read(client);
      if (row && row.token.value !== seen && row.ageMs < policy.renewAfterMs) return row.token;
      if (row && why === 'refused' && row.ageMs < policy.minAgeMs) return row.token;
      const value = await this.opts.mint();
      const res = await client.query(
        `INSERT INTO fleet_tokens (kind, identity, token, issued_at, expires_at)
         VALUES ($1, $2, $3, now(), now() + make_interval(secs => $4::float8 / 1000))
         ON CONFLICT (kind, identity) DO UPDATE SET token = EXCLUDED.token, issued_at = EXCLUDED.issued_at, expires_at = EXCLUDED.expires_at
         RETURNING issued_at, expires_at`,
        [this.key.kind, this.key.identity, seal(Buffer.from(value, 'utf8'), this.context), policy.lifetimeMs],
      );
      this.opts.minted?.(this.key, why);
      return { value, issuedAt: res.rows[0].issued_at, expiresAt: res.rows[0].expires_at };
    });
  }

  private async read(db: Queryable): Promise<Row | undefined> {
    const res = await db.query(
      `SELECT token, issued_at, expires_at, extract(epoch FROM now() - issued_at) * 1000 AS age_ms
         FROM fleet_tokens WHERE kind = $1 AND identity = $2`,
      [this.key.kind, this.key.identity],
    );
    const r = res.rows[0];
    if (!r) return undefined;
    let value: string;
    try {
      value = unseal(r.token, this.context).toString('utf8');
    } catch (error) {
      // Sealed with a key this process was not given (a rotation finished): a token is cheap, mint one.
      if (error instanceof SealError) return undefined;
      throw error;
    }
    return { token: { value, issuedAt: r.issued_at, expiresAt: r.expires_at }, ageMs: Number(r.age_ms) };
  }
}
