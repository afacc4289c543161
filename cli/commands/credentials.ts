// `herald credentials rotate-key`: seals every stored APNs credential with HERALD_ENCRYPTION_KEY
// (issue 12). Run it after setting a new key with the old one in HERALD_ENCRYPTION_KEYS_PREVIOUS,
// then drop the old key; run it once after upgrading, to seal rows stored in clear before.
import { createPool } from '../../core/store/db.js';
import { ConfigError, loadConfig, loadKeyring } from '../../core/config.js';
import { resealCredentials } from '../../core/apps/app-store.js';
import { useKeyring } from '../../core/secrets/seal.js';
import { fail } from '../runtime.js';

export async function credentialsRotateKey(): Promise<void> {
  let keyring;
  try {
    keyring = loadKeyring(process.env);
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message, 2);
    throw error;
  }
  if (!keyring.current) fail('HERALD_ENCRYPTION_KEY is not set: there is no key to seal with', 2);
  useKeyring(keyring);
  const pool = createPool(loadConfig(process.env).databaseUrl, { max: 2, applicationName: 'herald-cli' });
  try {
    const changed = await resealCredentials(pool);
    process.stdout.write(`sealed ${changed} app credential${changed === 1 ? '' : 's'} with the current key\n`);
  } finally {
    await pool.end();
  }
}
