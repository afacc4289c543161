// The identity secret of a cluster App (spec.identityVerification; core/apps/identity.ts): issued
// once into a Secret owned by the App, like an API key, and again whenever spec.rotation rises
// (the old secret stops at once). The row and the Secret commit together, as keys do.
import { randomBytes } from 'node:crypto';
import type { CoreV1Api } from '@kubernetes/client-node';
import type { Pool } from '../../core/store/db.js';
import { inTransaction } from '../../core/store/db.js';
import { getIdentity, issueIdentitySecret, setIdentityRequired } from '../../core/apps/identity.js';
import type { EventRecorder } from '../kube/events.js';
import { createOwnedSecret } from './owned-secret.js';
import type { AppObject, AppStatus } from './types.js';

export async function syncIdentity(
  deps: { pool: Pool; core: CoreV1Api; events: EventRecorder },
  app: AppObject,
  appId: string,
): Promise<AppStatus['identity']> {
  const spec = app.spec.identityVerification;
  const current = app.status?.identity;
  if (!spec) {
    await setIdentityRequired(deps.pool, appId, false);
    return current;
  }
  const required = spec.required ?? true;
  const rotation = spec.rotation ?? 0;
  if (current && current.rotation === rotation && (await getIdentity(deps.pool, appId))) {
    await setIdentityRequired(deps.pool, appId, required);
    return current;
  }
  // A random suffix: a Secret left by a crash between the two writes never blocks a new one.
  const suffix = `-identity-${rotation}-${randomBytes(3).toString('hex')}`;
  const secretName = app.metadata.name.slice(0, 253 - suffix.length) + suffix;
  await inTransaction(deps.pool, async (db) => {
    const secret = await issueIdentitySecret(db, appId, required);
    await setIdentityRequired(db, appId, required);
    await createOwnedSecret(deps.core, app, secretName, { 'herald.dev/identity-secret': 'true' }, { identitySecret: secret, appId });
  });
  deps.events.record(app, 'Normal', 'IdentitySecretIssued', `Identity secret issued (rotation ${rotation}); it is in Secret ${secretName}`);
  return { secretName, rotation };
}
