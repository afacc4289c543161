// The Redis bucket adapter: every API replica draws the same buckets, atomically, in one Lua
// script on Redis time (DECISIONS "Limits": bucket model). The script is drawOne of gcra.ts.
import type { Redis } from 'ioredis';
import { intervalMs } from './policy.js';
import type { BucketDraw, BucketOutcome, BucketStore, ChainResult } from './store.js';

// KEYS: the buckets in drawing order. ARGV[1]: now in ms, or '' for Redis TIME.
// ARGV[2i], ARGV[2i+1]: interval ms and burst of KEYS[i].
// Reply: {now, then per bucket reached: allowed (1/0), remaining or retry ms, reset ms}.
export const DRAW_CHAIN_LUA = `
local now
if ARGV[1] ~= '' then
  now = tonumber(ARGV[1])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local out = {now}
for i = 1, #KEYS do
  local t = tonumber(ARGV[i * 2])
  local burst = tonumber(ARGV[i * 2 + 1])
  local tat = tonumber(redis.call('GET', KEYS[i]) or '0')
  local base = math.max(tat, now)
  local newTat = base + t
  local over = newTat - now - burst * t
  if over > 0 then
    out[#out + 1] = 0
    out[#out + 1] = math.ceil(over)
    out[#out + 1] = math.ceil(base - now)
    return out
  end
  redis.call('SET', KEYS[i], string.format('%.3f', newTat), 'PX', math.ceil(newTat - now))
  out[#out + 1] = 1
  out[#out + 1] = math.floor((burst * t - (newTat - now)) / t + 1e-9)
  out[#out + 1] = math.ceil(newTat - now)
end
return out
`;

/**
 * Client options for the buckets' Redis connection: during an outage a draw must neither queue nor
 * wait (it goes to the per-process fallback at once), and the client reconnects forever, at most
 * 1 s apart, so recovery needs nobody.
 */
export const LIMITER_REDIS_OPTIONS = Object.freeze({
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: 500,
  retryStrategy: (times: number) => Math.min(times * 100, 1_000),
});

type DrawChainRedis = Redis & { heraldDrawChain(...args: (string | number)[]): Promise<number[]> };

export interface RedisBucketStoreOptions {
  /** Unix milliseconds; injected by tests. Default: Redis TIME, the one clock all replicas share. */
  clock?: () => number;
}

export class RedisBucketStore implements BucketStore {
  private readonly redis: DrawChainRedis;
  private readonly clock?: () => number;

  constructor(redis: Redis, opts: RedisBucketStoreOptions = {}) {
    // defineCommand sends EVALSHA and falls back to EVAL on NOSCRIPT (e.g. after a Redis restart).
    if (!('heraldDrawChain' in redis)) redis.defineCommand('heraldDrawChain', { lua: DRAW_CHAIN_LUA });
    this.redis = redis as DrawChainRedis;
    this.clock = opts.clock;
  }

  /** False while the client is not connected: callers may skip Redis without waiting for it. */
  get connected(): boolean {
    return this.redis.status === 'ready';
  }

  async drawChain(draws: readonly BucketDraw[]): Promise<ChainResult> {
    const args: (string | number)[] = [draws.length, ...draws.map((d) => d.key), this.clock ? String(this.clock()) : ''];
    for (const d of draws) args.push(intervalMs(d.spec), d.spec.burst);
    const reply = await this.redis.heraldDrawChain(...args);
    const nowMs = Number(reply[0]);
    const outcomes: BucketOutcome[] = [];
    for (let i = 0; i < draws.length && 1 + i * 3 < reply.length; i++) {
      const [allowed, value, resetMs] = [Number(reply[1 + i * 3]), Number(reply[2 + i * 3]), Number(reply[3 + i * 3])];
      const spec = draws[i]!.spec;
      outcomes.push(
        allowed === 1
          ? { spec, allowed: true, remaining: value, resetMs, retryAfterMs: 0 }
          : { spec, allowed: false, remaining: 0, resetMs, retryAfterMs: value },
      );
    }
    const last = outcomes[outcomes.length - 1];
    return last && !last.allowed ? { nowMs, outcomes, refused: last } : { nowMs, outcomes };
  }

  async close(): Promise<void> {
    // The client belongs to whoever built it (cli/); nothing to release here.
  }
}
