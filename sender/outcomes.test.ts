import { expect } from 'chai';
import { actionFor } from './outcomes.js';

describe('sender outcome table', () => {
  const cases: [number, string | undefined, string][] = [
    [200, undefined, 'sent'],
    [400, 'BadDeviceToken', 'unsubscribe'],
    [400, 'DeviceTokenNotForTopic', 'unsubscribe'],
    [400, 'BadCollapseId', 'failed'],
    [400, 'PayloadTooLarge', 'failed'],
    [413, 'PayloadTooLarge', 'failed'],
    [403, 'Forbidden', 'failed'],
    [404, 'BadPath', 'failed'],
    [410, 'Unregistered', 'unsubscribe'],
    [410, 'ExpiredToken', 'unsubscribe'],
    [429, 'TooManyRequests', 'retry'],
    [500, 'InternalServerError', 'hold'],
    [502, undefined, 'hold'],
    [503, 'ServiceUnavailable', 'hold'],
    [0, 'ConnectionError', 'hold'],
    [0, 'StreamReset', 'hold'],
    [0, 'Timeout', 'hold'],
    [0, undefined, 'hold'],
    [403, 'ExpiredProviderToken', 'retry'],
    [403, 'InvalidProviderToken', 'stop'],
    [403, 'MissingProviderToken', 'stop'],
    [403, 'BadCertificate', 'stop'],
    [403, 'BadCertificateEnvironment', 'stop'],
    [400, 'TopicDisallowed', 'stop'],
  ];
  for (const [status, reason, kind] of cases) {
    it(`${status} ${reason ?? ''} → ${kind}`, () => {
      expect(actionFor({ status, reason }).kind).to.equal(kind);
    });
  }

  it("fails only the device on BadCertificateEnvironment when it is not on the App's own environment", () => {
    expect(actionFor({ status: 403, reason: 'BadCertificateEnvironment' }, { offEnvironment: true })).to.deep.equal({ kind: 'failed', reason: 'BadCertificateEnvironment' });
    expect(actionFor({ status: 403, reason: 'BadCertificateEnvironment' }, { offEnvironment: false }).kind).to.equal('stop');
    expect(actionFor({ status: 403, reason: 'BadCertificate' }, { offEnvironment: true }).kind).to.equal('stop');
  });

  it("keeps Apple's timestamp on a 410 (the unsubscribe weighs it against the last registration)", () => {
    expect(actionFor({ status: 410, reason: 'Unregistered', timestamp: 1_700_000_000_000 })).to.deep.equal({ kind: 'unsubscribe', reason: 'Unregistered', appleTimestampMs: 1_700_000_000_000 });
  });

  it('fails a message refused before sending (local), whatever its status: never held, never unsubscribe', () => {
    expect(actionFor({ status: 0, reason: 'Unframeable', local: true })).to.deep.equal({ kind: 'failed', reason: 'Unframeable' });
    expect(actionFor({ status: 400, reason: 'BadDeviceToken', local: true })).to.deep.equal({ kind: 'failed', reason: 'BadDeviceToken' });
  });

  it('keeps Retry-After on a 429', () => {
    expect(actionFor({ status: 429, reason: 'TooManyRequests', retryAfterMs: 3000 })).to.deep.equal({ kind: 'retry', reason: 'TooManyRequests', retryAfterMs: 3000 });
  });

  it('keeps Retry-After on a 503 while holding', () => {
    expect(actionFor({ status: 503, reason: 'ServiceUnavailable', retryAfterMs: 2000 })).to.deep.equal({ kind: 'hold', reason: 'ServiceUnavailable', retryAfterMs: 2000 });
  });
});
