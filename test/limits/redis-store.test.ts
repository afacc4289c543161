// The bucket contract against the real Redis, on an injected clock and on Redis time.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { useTestEnv } from '../env/index.js';
import { RedisBucketStore } from '../../core/buckets/redis-store.js';
import { BUCKETS } from '../../core/buckets/policy.js';
import { bucketStoreContract } from '../../core/buckets/store.contract.js';

const env = useTestEnv({ bus: false });

bucketStoreContract('redis', async () => {
  let now = 1_700_000_000_000;
  return {
    store: new RedisBucketStore(env.redis, { clock: () => now }),
    advance: (ms) => { now += ms; },
    prefix: `${env.redisPrefix}${randomBytes(4).toString('hex')}:`,
  };
});

describe('redis bucket store on Redis time', () => {
  it('uses the server clock and expires full buckets', async () => {
    const store = new RedisBucketStore(env.redis);
    const key = `${env.redisPrefix}time:send`;
    const r = await store.drawChain([{ key, spec: BUCKETS.send }]);
    const [seconds] = await env.redis.time();
    expect(Math.abs(r.nowMs / 1000 - Number(seconds))).to.be.lessThan(5);
    expect(r.outcomes[0]!.remaining).to.equal(99);
    const ttl = await env.redis.pttl(key);
    expect(ttl).to.be.greaterThan(0).and.at.most(20);
  });

  it('survives a flushed script cache (Redis restart): EVALSHA falls back to EVAL', async () => {
    const store = new RedisBucketStore(env.redis);
    await env.redis.script('FLUSH');
    const r = await store.drawChain([{ key: `${env.redisPrefix}flush:read`, spec: BUCKETS.read }]);
    expect(r.outcomes[0]!.remaining).to.equal(39);
  });
});
