// An App's Firebase service account in PostgreSQL (migration 070): written when the App is applied
// (controller, `herald apps apply`), read by whoever mints the App's FCM access token. The private
// key is sealed at rest, bound to its app and column as APNs material is (core/apps/app-store.ts).
import type { Queryable } from '../store/db.js';
import { seal, sealContext, unseal } from '../secrets/seal.js';

/** The fields of Google's service-account JSON that Herald uses. */
export interface FcmServiceAccount {
  projectId: string;
  clientEmail: string;
  /** PEM of the RSA private key. */
  privateKey: string;
  /** Where the signed assertion is exchanged for an access token (the JSON's token_uri). */
  tokenUri: string;
}

const PRIVATE_KEY = (appId: string) => sealContext('fcm_credentials', 'private_key', appId);

export async function setFcmCredentials(db: Queryable, appId: string, account: FcmServiceAccount | null): Promise<void> {
  if (!account) {
    await db.query('DELETE FROM fcm_credentials WHERE app_id = $1', [appId]);
    return;
  }
  await db.query(
    `INSERT INTO fcm_credentials (app_id, project_id, client_email, token_uri, private_key)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (app_id) DO UPDATE SET project_id = EXCLUDED.project_id, client_email = EXCLUDED.client_email,
       token_uri = EXCLUDED.token_uri, private_key = EXCLUDED.private_key, updated_at = now()`,
    [appId, account.projectId, account.clientEmail, account.tokenUri, seal(Buffer.from(account.privateKey), PRIVATE_KEY(appId))],
  );
}

export async function getFcmCredentials(db: Queryable, appId: string): Promise<FcmServiceAccount | undefined> {
  const res = await db.query('SELECT project_id, client_email, token_uri, private_key FROM fcm_credentials WHERE app_id = $1', [appId]);
  const r = res.rows[0];
  if (!r) return undefined;
  return { projectId: r.project_id, clientEmail: r.client_email, tokenUri: r.token_uri, privateKey: unseal(r.private_key, PRIVATE_KEY(appId)).toString() };
}
