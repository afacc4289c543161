// The API's RateLimiter (api/deps.ts) over a bucket store: which buckets a call draws, in the
// contract's order (ip, then the key's class bucket, then audience), and what the answer carries.
import { createHash } from 'node:crypto';
import { RateLimitedError } from '../../core/errors.js';
import { BUCKETS, type BucketName } from '../../core/buckets/policy.js';
import type { BucketDraw, BucketStore } from '../../core/buckets/store.js';
import type { RateDraw, RateLimiter } from '../deps.js';
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
    if (result.refused) throw new RateLimitedError(retryAfterSeconds(result.refused), { headers });
    return headers;
  }
}
