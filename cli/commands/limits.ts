// Builds the rate limiter and the idempotency guard of the api (contract "Rate limits" and
// "Idempotency"): Redis buckets shared by every replica with the per-process fallback, and
// the PostgreSQL idempotency guard (its expired keys: the scheduler's retention).
import { Redis } from 'ioredis';
import type { Pool } from '../../core/store/db.js';
import type { ApiDeps } from '../../api/shared/deps.js';
import { BucketRateLimiter } from '../../api/rate-limit/bucket-limiter.js';
import { LIMITER_REDIS_OPTIONS, RedisBucketStore } from '../../core/buckets/redis-store.js';
import { MemoryBucketStore } from '../../core/buckets/memory-store.js';
import { FallbackBucketStore } from '../../core/buckets/fallback-store.js';
import { PgIdempotencyGuard } from '../../core/idempotency/pg-guard.js';
import type { Runtime } from '../runtime.js';

export async function buildLimits(rt: Runtime, pool: Pool): Promise<{ deps: Partial<ApiDeps> & Pick<ApiDeps, 'idempotency'>; close(): Promise<void> }> {
  const { config, logger } = rt;
  // Expired keys are swept by the scheduler's leader with the other retention (core/send/retention.ts).
  const idempotency = new PgIdempotencyGuard(pool);

  if (config.rateLimits === 'off') {
    logger.warn('rate limits are off (HERALD_RATE_LIMITS=off): for benchmarks only');
    return { deps: { idempotency }, close: async () => undefined };
  }

  const redis = new Redis(config.redisUrl, { ...LIMITER_REDIS_OPTIONS, lazyConnect: true });
  redis.on('error', () => undefined); // the fallback store logs the outage once
  await redis.connect().catch((error) => logger.warn({ err: error }, 'Redis not reachable at start; using per-process buckets until it is'));

  const store = new FallbackBucketStore(new RedisBucketStore(redis), new MemoryBucketStore(), logger);
  return {
    deps: {
      rateLimiter: new BucketRateLimiter(store, config.redisPrefix),
      idempotency,
      // Redis is deliberately not a readiness check: without it the api still answers, limited per process.
    },
    close: async () => {
      await store.close();
      redis.disconnect();
    },
  };
}
