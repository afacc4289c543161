// What one APNs client presents: the fleet's provider token (FleetTokenSource) kept in memory, so
// framing a request reads it synchronously, and asked of the source again only when it is due
// (its issuer's renewal age, by the database's issued_at) or after Apple called it expired. A
// token due for renewal is still presented while the source is asked (it is valid for another ten
// minutes); only a process holding none, or one past its expiry, waits for the source.
import type { FleetToken, FleetTokenSource } from '../gateway/fleet-token.js';
import { APNS_TOKEN_POLICY } from '../gateway/fleet-token-policy.js';
import type { SignedToken } from './provider-token.js';

/** A token the source gave back unchanged is not asked for again sooner than this. */
const REREAD_MS = 10_000;

export class PresentedToken {
  private token: FleetToken | undefined;
  private signed: SignedToken | undefined;
  private dueAt = 0;
  private generation = 0;
  private asking: Promise<void> | undefined;

  constructor(
    private readonly source: FleetTokenSource,
    private readonly now: () => number = Date.now,
  ) {}

  /** The token to present now, or undefined until `ready()` has fetched one. */
  current(): SignedToken | undefined {
    if (this.token && this.now() >= this.dueAt) {
      // Asked again no sooner than REREAD_MS should the source fail meanwhile (the database out): not once per request.
      this.dueAt = this.now() + REREAD_MS;
      void this.ask(() => this.source.current()).catch(() => undefined);
    }
    return this.signed;
  }

  /** Resolves once a token that has not expired is held; rejects when the source cannot give one (the database out). */
  async ready(): Promise<void> {
    if (this.token && this.now() < this.token.expiresAt.getTime()) return;
    await this.ask(() => this.source.current());
  }

  /** Apple answered ExpiredProviderToken to `generation`: only the first such answer asks the source to renew. */
  async invalidate(generation: number): Promise<void> {
    if (this.asking) return this.asking;
    const stale = this.token;
    if (!stale || generation !== this.generation) return;
    await this.ask(() => this.source.renew(stale));
  }

  private ask(get: () => Promise<FleetToken>): Promise<void> {
    this.asking ??= get()
      .then((t) => this.hold(t))
      .finally(() => (this.asking = undefined));
    return this.asking;
  }

  private hold(t: FleetToken): void {
    const now = this.now();
    if (t.value !== this.token?.value) {
      this.generation += 1;
      this.signed = { authorization: `bearer ${t.value}`, generation: this.generation };
    }
    this.token = t;
    this.dueAt = Math.max(now + REREAD_MS, t.issuedAt.getTime() + APNS_TOKEN_POLICY.renewAfterMs);
  }
}
