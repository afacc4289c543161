// `herald fcm-sim`'s settings (flags win over HERALD_FCM_SIM_*, a bad value names its flag) and its rules.
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFcmSimConfig } from './command.js';
import { decide, validateRules } from './rules.js';

describe('fcm-sim command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fcm-sim-cmd-'));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const file = join(dir, 'sa.json');
  writeFileSync(file, JSON.stringify({ type: 'service_account', project_id: 'p1', client_email: 'a@p1.iam.gserviceaccount.com', private_key: privateKey, token_uri: 'https://127.0.0.1:2202/token' }));

  it('defaults, then flags over the environment', () => {
    expect(parseFcmSimConfig([], {})).to.include({ host: '127.0.0.1', port: 2201, tokenPort: 2202, controlPort: 2203, certDir: '.herald/fcm-sim' });
    const c = parseFcmSimConfig(['--port', '0', '--service-account', file, '--token-lifetime', '60'], { HERALD_FCM_SIM_PORT: '9', HERALD_FCM_SIM_TOKEN_PORT: '0' });
    expect(c).to.include({ port: 0, tokenPort: 0, tokenLifetimeS: 60 });
    expect(c.accounts).to.have.length(1);
    expect(c.accounts![0]).to.include({ clientEmail: 'a@p1.iam.gserviceaccount.com', projectId: 'p1' });
    expect(parseFcmSimConfig([], { HERALD_FCM_SIM_SERVICE_ACCOUNTS: `${file},${file}` }).accounts).to.have.length(2);
  });

  it('names the flag or variable at fault', () => {
    expect(() => parseFcmSimConfig(['--port', 'x'], {})).to.throw('--port must be a non-negative integer, got "x"');
    expect(() => parseFcmSimConfig([], { HERALD_FCM_SIM_MAX_STREAMS: '-1' })).to.throw('HERALD_FCM_SIM_MAX_STREAMS must be a non-negative integer');
    expect(() => parseFcmSimConfig(['--token-lifetime', '0'], {})).to.throw('--token-lifetime must be at least 1 second');
    expect(() => parseFcmSimConfig(['--service-account', join(dir, 'none.json')], {})).to.throw(/^--service-account: .* is not a readable JSON file/);
    const partial = join(dir, 'partial.json');
    writeFileSync(partial, JSON.stringify({ project_id: 'p' }));
    expect(() => parseFcmSimConfig(['--service-account', partial], {})).to.throw('must hold client_email, project_id and private_key');
  });

  it('rules: FCM\'s code per status by default, `times` then 200, Retry-After carried; bad rules named', () => {
    const [r] = validateRules([{ prefix: 'x', status: 429, times: 2, retryAfter: 5 }]);
    expect(decide(r, 1)).to.deep.include({ kind: 'error', status: 429, errorCode: 'QUOTA_EXCEEDED', rpcStatus: 'RESOURCE_EXHAUSTED', retryAfter: 5 });
    expect(decide(r, 3)).to.deep.equal({ kind: 'ok', delayMs: 0 });
    expect(decide(validateRules([{ prefix: 'y', status: 403, errorCode: 'PERMISSION_DENIED' }])[0], 9)).to.include({ errorCode: 'PERMISSION_DENIED' });
    expect(() => validateRules([{ prefix: 'x', status: 418 }])).to.throw('rules[0].status must be one of');
    expect(() => validateRules([{ prefix: 'x', retryAfter: -1 }])).to.throw('rules[0].retryAfter must be a non-negative integer');
    expect(() => validateRules({ rules: [{ status: 400 }] })).to.throw('rules[0].prefix must be a string');
  });
});
