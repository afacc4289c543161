// What the HTTP front needs, passed in by cli/ (STYLE.md: only cli/ builds clients).
import type { Pool } from '../../core/store/db.js';
import type { Bus } from '../../core/bus/jetstream.js';
import type { Logger } from '../../core/log.js';
import type { ApiMetrics } from './metrics.js';
import type { LiveActivityBroadcast } from '../live-activities/broadcast.js';

/** Which class bucket an authenticated call draws (contract "Rate limits"). */
export type ClassBucket = 'send' | 'broadcast' | 'read' | 'users' | 'export' | 'estimate';

export interface RateDraw {
  keyId: string;
  appId: string;
  ip: string;
  bucket: ClassBucket;
  /** Segment or tag identity, for the per-app `audience` bucket; absent for other calls. */
  audience?: string;
}

/** Rate buckets (contract "Rate limits"). Both throw RateLimitedError when refused. */
export interface RateLimiter {
  /** Draws `ip`, then the class bucket, then `audience`; returns the headers of the closest bucket. */
  drawAuthenticated(draw: RateDraw): Promise<Record<string, string>>;
  /** Draws `anonymous` for a call refused with 401 or 403. */
  drawAnonymous(ip: string): Promise<Record<string, string>>;
  /** Draws the per-IP bucket of the app-facing SDK endpoints. */
  drawSdk?(ip: string): Promise<Record<string, string>>;
}

/** Idempotent retries (contract "Idempotency"): the accept path's guard (core/send/accept.ts). */
export type { SendIdempotency as IdempotencyGuard } from '../../core/send/accept.js';
import type { SendIdempotency as IdempotencyGuard } from '../../core/send/accept.js';

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
  /** Apple's broadcast push for Apps with spec.liveActivities.broadcast (issue 29); absent: per-token delivery only. */
  liveActivityBroadcast?: LiveActivityBroadcast;
}
