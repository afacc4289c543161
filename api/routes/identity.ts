// The identity check of the app-facing calls (core/apps/identity.ts). Which external id a call
// must prove: the one it sets; else, when it changes an install that has one, that install's.
// A call that names no external id on an install without one needs no hash (anonymous installs
// keep working with verification on).
import { ForbiddenError } from '../../core/errors.js';
import { authHashMatches, getIdentity } from '../../core/apps/identity.js';
import type { Queryable } from '../../core/store/db.js';

export const AUTH_HASH_WRONG =
  'external_id_auth_hash is missing or wrong: send the hex HMAC-SHA256 of the external id, made by your server with the app\'s identity secret.';

/** Throws 403 unless the call may touch this install's external id. `install`: by token or id. */
export async function checkIdentity(
  db: Queryable,
  appId: string,
  body: Record<string, unknown>,
  install: { token?: string; id?: string },
): Promise<void> {
  const identity = await getIdentity(db, appId);
  if (!identity?.required) return;
  let externalId = typeof body.external_id === 'string' ? body.external_id : undefined;
  if (externalId === undefined) {
    const where = install.id !== undefined ? 'id = $2' : 'token = $2';
    const res = await db.query(`SELECT external_id FROM subscriptions WHERE app_id = $1 AND ${where}`, [appId, install.id ?? install.token]);
    externalId = res.rows[0]?.external_id ?? undefined;
  }
  if (externalId !== undefined && !authHashMatches(identity.secret, externalId, body.external_id_auth_hash)) {
    throw new ForbiddenError(AUTH_HASH_WRONG);
  }
}
