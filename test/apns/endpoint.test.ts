// Which host a target talks to (unit).
import { expect } from 'chai';
import { APNS_PRODUCTION_URL, APNS_SANDBOX_URL, apnsOrigin } from '../../core/apns/index.js';

describe('core/apns endpoint', function () {
  const cases: Array<[string, Parameters<typeof apnsOrigin>[0], string]> = [
    ['production', { environment: 'production' }, 'https://api.push.apple.com'],
    ['sandbox', { environment: 'sandbox' }, 'https://api.sandbox.push.apple.com'],
    ['url override wins over production', { environment: 'production', url: 'https://127.0.0.1:2197' }, 'https://127.0.0.1:2197'],
    ['url override keeps only the origin', { environment: 'sandbox', url: 'https://localhost:8443/some/path' }, 'https://localhost:8443'],
  ];
  for (const [name, target, origin] of cases) {
    it(name, function () {
      expect(apnsOrigin(target)).to.equal(origin);
    });
  }

  it('names Apple hosts on port 443', function () {
    expect(new URL(APNS_PRODUCTION_URL).port).to.equal('');
    expect(new URL(APNS_SANDBOX_URL).hostname).to.equal('api.sandbox.push.apple.com');
  });

  it('refuses a non-https override', function () {
    expect(() => apnsOrigin({ environment: 'sandbox', url: 'http://127.0.0.1:2197' })).to.throw(/https/);
  });
});
