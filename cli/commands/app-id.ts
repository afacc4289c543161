// `herald apps move-id --app NAMESPACE/NAME APP_ID`: the administrator's approval for an app id to
// move to another App (issue 12). An App can otherwise claim only an id no other app holds, so a
// tenant cannot take over another namespace's app by naming its id in spec.appId. Run it after the
// old App is deleted; the App named here then adopts the id, its keys, installs and sends.
import { createPool } from '../../core/store/db.js';
import { loadConfig } from '../../core/config.js';
import { moveAppId } from '../../core/apps/app-store.js';
import { fail } from '../runtime.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function appsMoveId(appName: string | undefined, appId: string | undefined): Promise<void> {
  if (!appName || !appId || !UUID.test(appId)) fail('usage: herald apps move-id --app NAMESPACE/NAME APP_ID', 2);
  const pool = createPool(loadConfig(process.env).databaseUrl, { max: 2, applicationName: 'herald-cli' });
  try {
    const app = await moveAppId(pool, appId.toLowerCase(), appName);
    process.stdout.write(`app id ${app.id} now belongs to ${app.name}\n`);
  } finally {
    await pool.end();
  }
}
