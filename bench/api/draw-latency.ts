// The limiter's own cost per request: one drawAuthenticated (ip + send, one Lua script on Redis)
// timed sequentially and with 32 in flight, against the real Redis. What the limits add to an
// answer's latency, without the noise of the whole HTTP path.
//
//   npx tsx bench/api/draw-latency.ts [--n 5000]
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { LIMITER_REDIS_OPTIONS, RedisBucketStore } from '../../core/buckets/redis-store.js';
import { MemoryBucketStore } from '../../core/buckets/memory-store.js';
import { BucketRateLimiter } from '../../api/rate-limit/bucket-limiter.js';
import type { BucketStore } from '../../core/buckets/store.js';

const { values } = parseArgs({ options: { n: { type: 'string', default: '5000' } } });
const N = Number(values.n);
const prefix = `benchdraw${randomBytes(3).toString('hex')}:`;
const redis = new Redis(process.env.HERALD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', { ...LIMITER_REDIS_OPTIONS });
await new Promise((resolve) => redis.once('ready', resolve));

const pct = (xs: number[], p: number) => xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function measure(name: string, store: BucketStore, inFlight: number): Promise<void> {
  const limiter = new BucketRateLimiter(store, prefix);
  const times: number[] = [];
  let i = 0;
  const worker = async () => {
    while (i < N) {
      const n = i++;
      const t0 = performance.now();
      await limiter.drawAuthenticated({ keyId: `key${n % 400}`, appId: 'app', ip: `10.0.${(n >> 8) & 255}.${n & 255}`, bucket: 'send' });
      times.push(performance.now() - t0);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - t0) / 1000;
  console.log(`| ${name} | ${inFlight} | ${Math.round(N / seconds)} | ${pct(times, 50).toFixed(3)} | ${pct(times, 99).toFixed(3)} |`);
}

console.log('| store | in flight | draws/s | p50 ms | p99 ms |');
console.log('| --- | ---: | ---: | ---: | ---: |');
await measure('redis', new RedisBucketStore(redis), 1);
await measure('redis', new RedisBucketStore(redis), 32);
await measure('memory (fallback)', new MemoryBucketStore(), 1);
const left = await redis.keys(`${prefix}*`);
for (let j = 0; j < left.length; j += 500) await redis.del(...left.slice(j, j + 500));
redis.disconnect();
