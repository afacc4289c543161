// fcm-sim's token endpoint checks an assertion as Google does: signature, iss, scope, aud, iat/exp.
import { expect } from 'chai';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { signAssertion, tokenRequestBody } from '../core/fcm/assertion.js';
import { TokenIssuer } from './oauth.js';

describe('fcm-sim token endpoint', () => {
  const pair = () => generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const { privateKey, publicKey } = pair();
  const key = createPrivateKey(privateKey);
  const aud = 'https://127.0.0.1:9/token';
  const account = { clientEmail: 'sa@p.iam.gserviceaccount.com', tokenUri: aud };
  const issuer = new TokenIssuer([{ clientEmail: account.clientEmail, projectId: 'p', publicKey }], 60);
  const nowS = Math.floor(Date.now() / 1000);
  const form = (assertion: string) => new URLSearchParams(tokenRequestBody(assertion));
  /** A JWT with `claims` changed, signed with `k`. */
  const forged = (claims: Record<string, unknown>, k = key) => {
    const b = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const head = `${b({ alg: 'RS256', typ: 'JWT' })}.${b({ iss: account.clientEmail, scope: 'https://www.googleapis.com/auth/firebase.messaging', aud, iat: nowS, exp: nowS + 3600, ...claims })}`;
    const sig = signAssertion(account, k, nowS).split('.')[2];
    return { head, sig };
  };

  it('exchanges our assertion for a token bound to the account\'s project', () => {
    const r = issuer.exchange(form(signAssertion(account, key, nowS)), aud);
    expect(r).to.include({ ok: true, expiresIn: 60 });
    if (r.ok) expect(issuer.check(r.accessToken)).to.include({ projectId: 'p', clientEmail: account.clientEmail });
  });

  it('refuses another key, audience, scope, a life over an hour, an expired or unknown account', () => {
    const other = createPrivateKey(pair().privateKey);
    expect(issuer.exchange(form(signAssertion(account, other, nowS)), aud)).to.include({ ok: false, error: 'invalid_grant', description: 'Invalid JWT Signature.' });
    expect(issuer.exchange(form(signAssertion(account, key, nowS)), 'https://elsewhere/token')).to.include({ ok: false, error: 'invalid_grant' });
    expect(issuer.exchange(form(signAssertion(account, key, nowS - 3601)), aud)).to.include({ ok: false, error: 'invalid_grant' });
    expect(issuer.exchange(form(signAssertion({ ...account, clientEmail: 'who@x' }, key, nowS)), aud)).to.include({ ok: false, status: 401, error: 'invalid_client' });
    // Claims changed after signing: the signature no longer holds.
    for (const claims of [{ scope: 'https://www.googleapis.com/auth/cloud-platform' }, { exp: nowS + 3601 }]) {
      const { head, sig } = forged(claims);
      expect(issuer.exchange(form(`${head}.${sig}`), aud).ok).to.equal(false);
    }
    expect(issuer.exchange(new URLSearchParams({ grant_type: 'password' }), aud)).to.include({ error: 'unsupported_grant_type' });
  });

  it('a revoked token is no longer accepted', () => {
    const r = issuer.exchange(form(signAssertion(account, key, nowS)), aud);
    issuer.revokeAll();
    if (r.ok) expect(issuer.check(r.accessToken)).to.equal(undefined);
  });
});
