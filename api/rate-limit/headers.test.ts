import { expect } from 'chai';
import { BUCKETS } from '../../core/buckets/policy.js';
import type { BucketOutcome } from '../../core/buckets/store.js';
import { closestToEmpty, rateLimitHeaders } from './headers.js';

const ok = (name: keyof typeof BUCKETS, remaining: number, resetMs: number): BucketOutcome =>
  ({ spec: BUCKETS[name], allowed: true, remaining, resetMs, retryAfterMs: 0 });

describe('rate-limit headers', () => {
  const nowMs = 1_700_000_000_250;

  it('shows the drawn bucket with the fewest tokens left; ties go to the slower refill', () => {
    expect(closestToEmpty([ok('ip', 5999, 10), ok('send', 99, 20)]).spec.name).to.equal('send');
    expect(closestToEmpty([ok('ip', 3, 10), ok('send', 99, 20)]).spec.name).to.equal('ip');
    expect(closestToEmpty([ok('ip', 5999, 10), ok('broadcast', 9, 2000), ok('audience', 9, 6000)]).spec.name).to.equal('audience');
  });

  it('formats the allowed answer: reset in seconds, X-RateLimit-Reset a Unix time, one policy entry per bucket', () => {
    const h = rateLimitHeaders({ nowMs, outcomes: [ok('ip', 5999, 10), ok('read', 38, 1500)] });
    expect(h).to.deep.equal({
      'RateLimit-Limit': '40',
      'RateLimit-Remaining': '38',
      'RateLimit-Reset': '2',
      'RateLimit-Policy': '6000;w=60;burst=6000;name="ip", 20;w=1;burst=40;name="read"',
      'X-RateLimit-Limit': '40',
      'X-RateLimit-Remaining': '38',
      'X-RateLimit-Reset': String(Math.ceil((nowMs + 1500) / 1000)),
    });
  });

  it('on a refusal shows the refusing bucket, and X-RateLimit-Reset is now + Retry-After', () => {
    const refused: BucketOutcome = { spec: BUCKETS.broadcast, allowed: false, remaining: 0, resetMs: 20_000, retryAfterMs: 1_200 };
    const h = rateLimitHeaders({ nowMs, outcomes: [ok('ip', 1, 59_990), refused], refused });
    expect(h['RateLimit-Limit']).to.equal('10');
    expect(h['RateLimit-Remaining']).to.equal('0');
    expect(h['RateLimit-Reset']).to.equal('20');
    expect(h['X-RateLimit-Reset']).to.equal(String(Math.floor(nowMs / 1000) + 2)); // Retry-After: ceil(1.2) = 2
    expect(h['RateLimit-Policy']).to.equal('6000;w=60;burst=6000;name="ip", 30;w=60;burst=10;name="broadcast"');
  });
});
