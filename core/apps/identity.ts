// Identity verification, as OneSignal does it: an app may require that the SDK calls
// setting or using an `external_id` carry `external_id_auth_hash` = hex HMAC-SHA256 of the
// external id, keyed with the app's identity secret. The app's server computes the hash (it
// holds the secret); a device alone cannot, so nobody can attach another user's external id to
// their own install and receive that user's pushes. Off by default, for compatibility.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../store/db.js';
import { isSealedWithCurrent, seal, sealContext, unseal } from '../secrets/seal.js';

// The secret is bound to its app (core/secrets/seal.ts): copied to another app's row it does not open.
const SECRET = (appId: string) => sealContext('app_identity', 'secret', appId);

export interface AppIdentity {
  secret: Buffer;
  required: boolean;
}

/** hex HMAC-SHA256 of the external id with the identity secret (what the app's server sends). */
export function externalIdAuthHash(secret: Buffer | string, externalId: string): string {
  return createHmac('sha256', secret).update(externalId, 'utf8').digest('hex');
}

/** Constant-time comparison of a caller's hash with the expected one. */
export function authHashMatches(secret: Buffer, externalId: string, given: unknown): boolean {
  if (typeof given !== 'string' || !/^[0-9a-f]{64}$/i.test(given)) return false;
  return timingSafeEqual(Buffer.from(externalIdAuthHash(secret, externalId), 'hex'), Buffer.from(given, 'hex'));
}

export async function getIdentity(db: Queryable, appId: string): Promise<AppIdentity | undefined> {
  const r = (await db.query('SELECT secret, required FROM app_identity WHERE app_id = $1', [appId])).rows[0];
  return r ? { secret: unseal(r.secret, SECRET(appId)), required: r.required } : undefined;
}

/**
 * Issues a new identity secret (the previous one stops working at once) and returns it: it is
 * shown once, like a key. `required` unchanged when the app had a secret, else as given.
 */
export async function issueIdentitySecret(db: Queryable, appId: string, required = false): Promise<string> {
  const secret = randomBytes(32).toString('hex');
  await db.query(
    `INSERT INTO app_identity (app_id, secret, required) VALUES ($1, $2, $3)
     ON CONFLICT (app_id) DO UPDATE SET secret = EXCLUDED.secret, updated_at = now()`,
    [appId, seal(Buffer.from(secret, 'utf8'), SECRET(appId)), required],
  );
  return secret;
}

/** Turns the requirement on or off; false when the app has no identity secret yet. */
export async function setIdentityRequired(db: Queryable, appId: string, required: boolean): Promise<boolean> {
  const res = await db.query('UPDATE app_identity SET required = $2, updated_at = now() WHERE app_id = $1', [appId, required]);
  return (res.rowCount ?? 0) > 0;
}

/** Seals every identity secret with the current key, bound to its app (`herald credentials rotate-key`). */
export async function resealIdentitySecrets(db: Queryable): Promise<number> {
  const rows = (await db.query('SELECT app_id, secret FROM app_identity')).rows;
  let changed = 0;
  for (const r of rows) {
    if (isSealedWithCurrent(r.secret)) continue;
    await db.query('UPDATE app_identity SET secret = $2 WHERE app_id = $1', [r.app_id, seal(unseal(r.secret, SECRET(r.app_id)), SECRET(r.app_id))]);
    changed++;
  }
  return changed;
}
