// throttle_rate_per_minute (contract "Throttling rules"): one bucket per send in Redis, shared by
// every sender, spreads a segment or tag send at about that many devices a minute. Each chunk
// reserves its devices' time once: the reservation is stored under (send, chunk), so a chunk that
// is handed back until its turn and comes back — or is claimed again — does not pay twice. The
// first chunk starts at once; after that a chunk of n devices moves the bucket n × (60 s / rate)
// ahead, so in any time t at most rate × t + 500 devices have started: never faster than the rate.
import type { Redis } from 'ioredis';
import type { ClaimedChunk } from '../core/delivery/claim.js';
import { isConditionTarget } from '../core/audience/target-kinds.js';
import { pauseUnlessStopping } from './stoppable-wait.js';

const RESERVE = `
local reserved = redis.call('GET', KEYS[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if reserved then return math.floor(tonumber(reserved) - now) end
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
local start = math.max(tat, now)
local nexttat = start + tonumber(ARGV[1]) * tonumber(ARGV[2])
local ttl = math.floor(nexttat - now) + 3600000
redis.call('SET', KEYS[1], tostring(nexttat), 'PX', ttl)
redis.call('SET', KEYS[2], tostring(start), 'PX', ttl)
return math.floor(start - now)
`;

export interface Throttle {
  /** ms this chunk must wait before it starts (<= 0: start now). */
  reserve(sendId: number, chunk: number, devices: number, perMinute: number): Promise<number>;
}

export function createThrottle(redis: Redis, prefix: string): Throttle {
  return {
    async reserve(sendId, chunk, devices, perMinute) {
      const intervalMs = 60_000 / perMinute;
      const wait = await redis.eval(RESERVE, 2, `${prefix}throttle:${sendId}`, `${prefix}throttle:${sendId}:${chunk}`, devices, intervalMs);
      return Number(wait);
    },
  };
}

/**
 * Waits for a chunk's turn when its send is throttled (a broadcast; a time-zone send is spread by
 * its zones instead): in place up to `maxHoldMs`, then returns 0. A longer wait, or any wait once
 * the sender stops, is returned instead: the chunk is handed back until its turn (lease.ts).
 */
export async function awaitTurn(throttle: Throttle | undefined, claimed: ClaimedChunk, opts: { maxHoldMs: number; stopping(): boolean }): Promise<number> {
  const perMinute = claimed.throttlePerMinute;
  if (!throttle || !perMinute || claimed.timezone || !isConditionTarget({ kind: claimed.targetKind })) return 0;
  const waitMs = await throttle.reserve(claimed.sendId, claimed.chunk, claimed.planned, perMinute);
  if (waitMs > opts.maxHoldMs || (waitMs > 0 && opts.stopping())) return waitMs;
  if (waitMs > 0) await pauseUnlessStopping(waitMs, () => opts.stopping());
  return 0;
}
