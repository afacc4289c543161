// What the HTTP front needs, passed in by cli/ (STYLE.md: only cli/ builds clients).
import type { Pool } from '../core/store/db.js';
import type { Bus } from '../core/bus/jetstream.js';
import type { Logger } from '../core/log.js';
import type { CreatedSend } from '../core/send/create-send.js';
import type { PoolClient } from '../core/store/db.js';
import type { ApiMetrics } from './metrics.js';

/** Which class bucket an authenticated call draws (contract "Rate limits"). */
export type ClassBucket = 'send' | 'broadcast' | 'read';

export interface RateDraw {
  keyId: string;
  appId: string;
  ip: string;
  bucket: ClassBucket;
  /** Segment or tag identity, for the per-app `audience` bucket; absent for other calls. */
  audience?: string;
}

/** Rate buckets (issue "Rate buckets and idempotent retries"). Both throw RateLimitedError when refused. */
export interface RateLimiter {
  /** Draws `ip`, then the class bucket, then `audience`; returns the headers of the closest bucket. */
  drawAuthenticated(draw: RateDraw): Promise<Record<string, string>>;
  /** Draws `anonymous` for a call refused with 401 or 403. */
  drawAnonymous(ip: string): Promise<Record<string, string>>;
  /** Draws the per-IP bucket of the app-facing SDK endpoints. */
  drawSdk?(ip: string): Promise<Record<string, string>>;
}

/** Idempotent retries (contract "Idempotency"). */
export interface IdempotencyGuard {
  /**
   * Runs `create` once per (app, key) in 24 hours. `create` receives a hook that records the key in
   * the same transaction as the send. A repeat with the same fingerprint returns the first answer
   * (replayed: true); a different fingerprint throws ValidationError; a repeat while the first is
   * running waits up to 5 s, then throws ConflictError.
   */
  run(
    appId: string,
    key: string,
    fingerprint: unknown,
    create: (withinTransaction: (db: PoolClient, created: CreatedSend) => Promise<void>) => Promise<CreatedSend>,
  ): Promise<{ created: CreatedSend; replayed: boolean }>;
}

export interface ApiDeps {
  pool: Pool;
  bus: Bus;
  logger: Logger;
  metrics: ApiMetrics;
  /** Proxy hops whose X-Forwarded-For is trusted (0: the socket address). */
  trustProxyHops: number;
  rateLimiter?: RateLimiter;
  idempotency: IdempotencyGuard;
  now?: () => Date;
  /** Checks for /readyz beyond PostgreSQL and NATS (e.g. Redis); each throws when not ready. */
  readinessChecks?: Record<string, () => Promise<void>>;
}
