// `herald dev`'s demo App gets FCM credentials beside its APNs ones (issue 39 point 7): the service
// account JSON scripts/dev.sh wrote (a key of its own; fcm-sim with no accounts configured takes
// any well-signed assertion), its token_uri pointed at the simulator's token endpoint. Stored with
// setFcmCredentials (sealed as every credential is) at each start, so it follows the simulator's
// port and survives `herald apps apply` of the demo manifest, which names APNs credentials only.
import { readFile } from 'node:fs/promises';
import type { Logger } from '../../core/log.js';
import { getAppByName } from '../../core/apps/app-store.js';
import { setFcmCredentials } from '../../core/fcm/credentials-store.js';
import { createPool } from '../../core/store/db.js';

export interface DemoFcm {
  databaseUrl: string;
  /** The demo App's name (HERALD_DEV_FCM_APP). */
  app: string;
  /** The service account JSON's path (HERALD_DEV_FCM_SERVICE_ACCOUNT). */
  serviceAccountFile: string;
  /** The simulator's token endpoint: the stored token_uri. */
  tokenUri: string;
}

export async function storeDemoFcmCredentials(opts: DemoFcm, logger: Logger): Promise<void> {
  const json = JSON.parse(await readFile(opts.serviceAccountFile, 'utf8')) as { project_id?: string; client_email?: string; private_key?: string };
  if (!json.project_id || !json.client_email || !json.private_key) throw new Error(`${opts.serviceAccountFile}: project_id, client_email and private_key are required`);
  const pool = createPool(opts.databaseUrl, { max: 1, applicationName: 'herald-dev' });
  try {
    const app = await getAppByName(pool, opts.app);
    if (!app) throw new Error(`no app named ${opts.app} for the demo FCM credentials`);
    await setFcmCredentials(pool, app.id, { projectId: json.project_id, clientEmail: json.client_email, privateKey: json.private_key, tokenUri: opts.tokenUri });
    logger.info({ app: opts.app, projectId: json.project_id, tokenUri: opts.tokenUri }, 'dev: the demo app has FCM credentials for the simulator');
  } finally {
    await pool.end();
  }
}
