// The per-file test environment: real PostgreSQL, Redis and NATS, each test file isolated by its
// own database (cloned from the migrated template), its own stream prefix and Redis key prefix.
//
//   const env = useTestEnv();            // registers before/after hooks
//   it('…', async () => { env.pool.query(…) });
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { ensureServices } from './services.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { connectBus, deleteStreams, type Bus } from '../../core/bus/jetstream.js';
import type { Pool } from '../../core/store/db.js';

export interface TestEnv {
  readonly db: TestDatabase;
  readonly pool: Pool;
  readonly databaseUrl: string;
  readonly bus: Bus;
  readonly redis: Redis;
  readonly streamPrefix: string;
  readonly redisPrefix: string;
  /** Environment variables for a `herald` child process pointed at this file's isolated servers. */
  childEnv(extra?: Record<string, string>): Record<string, string>;
}

export const NATS_URL = process.env.HERALD_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
export const REDIS_URL = process.env.HERALD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function useTestEnv(opts: { bus?: boolean; redis?: boolean } = {}): TestEnv {
  const id = randomBytes(4).toString('hex');
  const state: { db?: TestDatabase; bus?: Bus; redis?: Redis; streamPrefix: string; redisPrefix: string } = {
    streamPrefix: `T${id}`,
    redisPrefix: `t${id}:`,
  };

  before(async function () {
    this.timeout(120_000);
    await ensureServices();
    state.db = await createTestDatabase();
    if (opts.bus !== false) state.bus = await connectBus(NATS_URL, state.streamPrefix, { name: `test-${id}` });
    if (opts.redis !== false) state.redis = new Redis(REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 2 });
  });

  after(async function () {
    this.timeout(60_000);
    if (state.bus) {
      await deleteStreams(state.bus.jsm, state.bus.names);
      await state.bus.close();
    }
    if (state.redis) {
      const keys = await state.redis.keys(`${state.redisPrefix}*`);
      if (keys.length) await state.redis.del(...keys);
      state.redis.disconnect();
    }
    await state.db?.drop();
  });

  const need = <K extends 'db' | 'bus' | 'redis'>(key: K): NonNullable<(typeof state)[K]> => {
    const value = state[key];
    if (value === undefined) throw new Error(`test env: ${key} is not ready (used outside a test?)`);
    return value as NonNullable<(typeof state)[K]>;
  };

  return {
    get db() { return need('db'); },
    get pool() { return need('db').pool; },
    get databaseUrl() { return need('db').url; },
    get bus() { return need('bus'); },
    get redis() { return need('redis'); },
    streamPrefix: state.streamPrefix,
    redisPrefix: state.redisPrefix,
    childEnv(extra = {}) {
      return {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/root',
        HERALD_DATABASE_URL: need('db').url,
        HERALD_NATS_URL: NATS_URL,
        HERALD_REDIS_URL: REDIS_URL,
        HERALD_STREAM_PREFIX: state.streamPrefix,
        HERALD_REDIS_PREFIX: state.redisPrefix,
        HERALD_LOG_LEVEL: process.env.HERALD_TEST_LOG_LEVEL ?? 'warn',
        ...extra,
      };
    },
  };
}
