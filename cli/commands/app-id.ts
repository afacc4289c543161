// Admin commands on an app's identity. `herald apps move-id --app NAMESPACE/NAME APP_ID`: the administrator's approval for an app id to
// move to another App. An App can otherwise claim only an id no other app holds, so a
// tenant cannot take over another namespace's app by naming its id in spec.appId. Run it after the
// old App is deleted; the App named here then adopts the id, its keys, installs and sends.
import { moveAppId } from '../../core/apps/app-store.js';
import { issueIdentitySecret, setIdentityRequired } from '../../core/apps/identity.js';
import { fail, usageError } from '../runtime.js';
import { appByName, commandPool, withPool } from './admin.js';
import { isUuid } from '../../core/formats/uuid.js';


export async function appsMoveId(appName: string | undefined, appId: string | undefined): Promise<void> {
  if (!appName || !appId || !isUuid(appId)) usageError('usage: herald apps move-id --app NAMESPACE/NAME APP_ID');
  const pool = commandPool();
  try {
    const app = await moveAppId(pool, appId.toLowerCase(), appName);
    process.stdout.write(`app id ${app.id} now belongs to ${app.name}\n`);
  } finally {
    await pool.end();
  }
}

/**
 * `herald apps identity --app NAME issue|on|off`: identity verification of an app without a
 * cluster (cluster Apps use spec.identityVerification). `issue` prints a new identity secret once
 * (the previous one stops) and turns verification on.
 */
export async function appsIdentity(appName: string | undefined, action: string | undefined): Promise<void> {
  if (!appName || !['issue', 'on', 'off'].includes(action ?? '')) usageError('usage: herald apps identity --app NAME issue|on|off');
  // withPool opens the keyring: the secret is sealed like credentials.
  await withPool(async (pool) => {
    const app = await appByName(pool, appName);
    if (action === 'issue') {
      process.stdout.write(`${await issueIdentitySecret(pool, app.id, true)}\n`);
    } else if (!(await setIdentityRequired(pool, app.id, action === 'on'))) {
      fail(`app ${appName} has no identity secret yet: run herald apps identity --app ${appName} issue`);
    } else {
      process.stdout.write(`${app.name}: identity verification ${action}\n`);
    }
  });
}
