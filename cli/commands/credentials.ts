// `herald credentials rotate-key`: seals every stored APNs credential, Firebase private key,
// identity secret and event destination's signing secret with HERALD_ENCRYPTION_KEY, each bound
// to its app and column. Run it after setting a new key with the old one in
// HERALD_ENCRYPTION_KEYS_PREVIOUS, then drop the old key; run it once after upgrading, to seal
// rows stored in clear before and rows sealed before values were bound to their place.
import { ConfigError, loadKeyring } from '../../core/config.js';
import { resealCredentials } from '../../core/apps/app-store.js';
import { resealIdentitySecrets } from '../../core/apps/identity.js';
import { resealEventSecrets } from '../../core/events/destinations.js';
import { useKeyring } from '../../core/secrets/seal.js';
import { fail } from '../runtime.js';
import { commandPool } from './admin.js';

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
  const pool = commandPool();
  try {
    const changed = await resealCredentials(pool);
    const secrets = await resealIdentitySecrets(pool);
    const signing = await resealEventSecrets(pool);
    const n = (count: number, what: string) => `${count} ${what}${count === 1 ? '' : 's'}`;
    process.stdout.write(`sealed ${n(changed, 'app credential')}, ${n(secrets, 'identity secret')} and ${n(signing, 'event signing secret')} with the current key\n`);
  } finally {
    await pool.end();
  }
}
