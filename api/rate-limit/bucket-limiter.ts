// The API's RateLimiter (api/shared/deps.ts) over a bucket store: which buckets a call draws, in the
// contract's order (ip, then the key's class bucket, then audience), and what the answer carries.
import { createHash } from 'node:crypto';
import { RateLimitedError } from '../../core/errors.js';
import { BUCKETS, type BucketName } from '../../core/buckets/policy.js';
import type { BucketDraw, BucketStore } from '../../core/buckets/store.js';
import type { RateDraw, RateLimiter } from '../shared/deps.js';
import { rateLimitHeaders, retryAfterSeconds } from './headers.js';

export class BucketRateLimiter implements RateLimiter {
  /** `prefix` starts every storage key (HERALD_REDIS_PREFIX), e.g. `herald:`. */
  constructor(private readonly store: BucketStore, private readonly prefix: string) {}

  private key(name: BucketName, id: string): BucketDraw {
    return { key: `${this.prefix}rl:${name}:${id}`, spec: BUCKETS[name] };
  }

  async drawAuthenticated(draw: RateDraw): Promise<Record<string, string>> {
    const chain = [this.key('ip', draw.ip), this.key(draw.bucket, draw.keyId)];
    if (draw.audience !== undefined) {
      // Per app and segment or tag, across the app's keys; hashed so a long tag value stays a short key.
      const audience = createHash('sha256').update(draw.audience).digest('base64url').slice(0, 22);
      chain.push(this.key('audience', `${draw.appId}:${audience}`));
    }
    return this.draw(chain);
  }

  drawAnonymous(ip: string): Promise<Record<string, string>> {
    return this.draw([this.key('anonymous', ip)]);
  }

  drawSdk(ip: string): Promise<Record<string, string>> {
    return this.draw([this.key('sdk', ip)]);
  }

  private async draw(chain: BucketDraw[]): Promise<Record<string, string>> {
    const result = await this.store.drawChain(chain);
    const headers = rateLimitHeaders(result);
    if (result.refused) {
      const seconds = retryAfterSeconds(result.refused);
      // The contract's message says when to retry; it also names the bucket and its rate, so a
      // caller knows which of its six limits it met.
      throw new RateLimitedError(seconds, { headers, message: `Too many requests: the ${result.refused.spec.name} bucket allows ${rateText(result.refused.spec)}. Retry after ${seconds} seconds.` });
    }
    return headers;
  }
}

/** "50 a second", "30 a minute (bursts of 10)": a bucket's rate as a person reads it. */
export function rateText(spec: { rate: number; windowSeconds: number; burst: number }): string {
  const per = spec.windowSeconds === 1 ? 'a second' : spec.windowSeconds === 60 ? 'a minute' : `per ${spec.windowSeconds} seconds`;
  return `${spec.rate.toLocaleString('en-US')} ${per} (bursts of ${spec.burst.toLocaleString('en-US')})`;
}
