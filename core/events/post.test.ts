// Retry-After as a receiver may send it (RFC 9110 10.2.3): delta-seconds or an HTTP-date, and
// nothing else taken for either.
import { expect } from 'chai';
import { parseRetryAfter } from './post.js';

describe('events: parseRetryAfter', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  const cases: Array<[string | undefined, number | undefined]> = [
    ['120', 120_000],
    [' 7 ', 7_000],
    ['0', 0],
    ['9999999999', 9_999_999_999_000], // the longest accepted (10 digits); the dispatcher caps it at an hour
    ['99999999999', undefined], // 11 digits
    ['Wed, 25 Nov 2026 12:01:30 GMT', 90_000], // IMF-fixdate
    ['Wednesday, 25-Nov-26 12:00:10 GMT', 10_000], // RFC 850
    ['Wed Nov 25 12:00:05 2026', 5_000], // asctime
    ['Tue, 24 Nov 2026 12:00:00 GMT', 0], // past: no wait beyond the back-off
    ['2099', 2_099_000], // delta-seconds, not the year
    ['2099-01-01', undefined], // not an HTTP-date, though Date.parse reads it
    ['-5', undefined],
    ['1.5', undefined],
    ['soon', undefined],
    ['', undefined],
    [undefined, undefined],
  ];
  for (const [value, ms] of cases) {
    it(`${JSON.stringify(value)} → ${ms}`, () => expect(parseRetryAfter(value, now)).to.equal(ms));
  }
});
