// Provider tokens: our signer's tokens pass the simulator's verifier; renewal rules (unit).
import { expect } from 'chai';
import { generateApnsKeyPair, parseApnsSimConfig } from '../../apns-sim/index.js';
import { ProviderTokenVerifier } from '../../apns-sim/provider-token.js';
import { ProviderTokenSigner, TOKEN_REFRESH_MS } from '../../core/apns/provider-token.js';

describe('provider tokens', function () {
  const key = generateApnsKeyPair('KEY0000001');
  const verifier = new ProviderTokenVerifier([{ keyId: key.keyId, teamId: 'TEAM000001', publicKey: key.publicKeyPem }]);

  it('signs ES256 JWTs the simulator verifies; kid and iss are carried', function () {
    const signed = new ProviderTokenSigner(key.privateKeyP8, key.keyId, 'TEAM000001').current();
    expect(signed.authorization).to.match(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(verifier.check(signed.authorization)).to.include({ ok: true, keyId: key.keyId, teamId: 'TEAM000001' });
  });

  it('rejects a wrong team, and a token older than an hour', function () {
    const wrongTeam = new ProviderTokenSigner(key.privateKeyP8, key.keyId, 'TEAM000002').current();
    expect(verifier.check(wrongTeam.authorization)).to.deep.equal({ ok: false, reason: 'InvalidProviderToken' });
    const old = new ProviderTokenSigner(key.privateKeyP8, key.keyId, 'TEAM000001', () => Date.now() - 3601_000).current();
    expect(verifier.check(old.authorization)).to.deep.equal({ ok: false, reason: 'ExpiredProviderToken' });
  });

  it('with no configured key, checks only shape and age', function () {
    const open = new ProviderTokenVerifier();
    const other = generateApnsKeyPair();
    expect(open.check(new ProviderTokenSigner(other.privateKeyP8, other.keyId, 'ANYTEAM').current().authorization).ok).to.equal(true);
    expect(open.check('bearer a.b.c')).to.deep.equal({ ok: false, reason: 'InvalidProviderToken' });
    expect(open.check(undefined)).to.deep.equal({ ok: false, reason: 'MissingProviderToken' });
  });

  it('reuses one token until 50 minutes, then renews', function () {
    let now = 1_700_000_000_000;
    const signer = new ProviderTokenSigner(key.privateKeyP8, key.keyId, 'TEAM000001', () => now);
    const first = signer.current();
    now += TOKEN_REFRESH_MS - 1;
    expect(signer.current()).to.equal(first);
    now += 1;
    const second = signer.current();
    expect(second.generation).to.equal(first.generation + 1);
    expect(second.authorization).to.not.equal(first.authorization);
  });

  it('renews once per generation when invalidated (concurrent ExpiredProviderToken answers)', function () {
    const signer = new ProviderTokenSigner(key.privateKeyP8, key.keyId, 'TEAM000001');
    const first = signer.current();
    signer.invalidate(first.generation);
    signer.invalidate(first.generation);
    expect(signer.current().generation).to.equal(first.generation + 1);
  });

  it('does not quote the key when it is unusable', function () {
    expect(() => new ProviderTokenSigner('-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----', 'K1', 'T1')).to.throw(TypeError, /^APNs key K1 is not a valid/);
  });
});

describe('herald apns-sim settings', function () {
  it('reads HERALD_APNS_SIM_* and lets flags win', function () {
    const env = { HERALD_APNS_SIM_PORT: '3000', HERALD_APNS_SIM_CONTROL_PORT: '3001', HERALD_APNS_SIM_AUTH: 'none', HERALD_APNS_SIM_MAX_DELIVERIES: '0', HERALD_APNS_SIM_TOPICS: 'a.b, c.d' };
    const config = parseApnsSimConfig(['--port', '4000', '--track-tokens', 'false'], env);
    expect(config).to.include({ port: 4000, controlPort: 3001, auth: 'none', maxDeliveries: 0, trackTokens: false });
    expect(config.topics).to.deep.equal(['a.b', 'c.d']);
  });

  it('names the variable at fault', function () {
    expect(() => parseApnsSimConfig([], { HERALD_APNS_SIM_PORT: 'x' })).to.throw(/HERALD_APNS_SIM_PORT/);
    expect(() => parseApnsSimConfig(['--auth', 'maybe'], {})).to.throw(/--auth/);
    expect(() => parseApnsSimConfig([], { HERALD_APNS_SIM_KEY_FILE: '/x.p8' })).to.throw(/HERALD_APNS_SIM_KEY_ID/);
  });
});
