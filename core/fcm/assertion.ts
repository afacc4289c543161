// The signed assertion a service account exchanges for an access token (Google, "Using OAuth 2.0
// for Server to Server Applications"; /work/shared/design/FCM.md): an RS256 JWT whose `iss` is the
// client email, `scope` FCM's, `aud` the JSON's token_uri, valid at most an hour.
import { createPrivateKey, createSign, type KeyObject } from 'node:crypto';
import type { FcmServiceAccount } from './credentials-store.js';

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
/** Google refuses an assertion valid longer than an hour. */
export const ASSERTION_LIFETIME_S = 3600;

/** The service account's private key is not a readable RSA key: the App's credentials are unusable. */
export class FcmKeyError extends Error {
  override name = 'FcmKeyError';
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/** The key, loaded once per client (a PEM parse costs more than a signature). */
export function loadServiceAccountKey(account: Pick<FcmServiceAccount, 'privateKey'>): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(account.privateKey);
  } catch (error) {
    throw new FcmKeyError(`the service account's private_key is not a readable key (${(error as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'rsa') throw new FcmKeyError(`the service account's private_key is ${key.asymmetricKeyType}, not RSA`);
  return key;
}

/** The JWT for `account`, issued at `nowS` (UNIX seconds). */
export function signAssertion(account: Pick<FcmServiceAccount, 'clientEmail' | 'tokenUri'>, key: KeyObject, nowS: number): string {
  const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const claims = b64url(JSON.stringify({ iss: account.clientEmail, scope: FCM_SCOPE, aud: account.tokenUri, iat: nowS, exp: nowS + ASSERTION_LIFETIME_S }));
  const signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(key);
  return `${header}.${claims}.${b64url(signature)}`;
}

/** The form posted to token_uri. */
export function tokenRequestBody(assertion: string): string {
  return new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString();
}
