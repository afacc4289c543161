// Secrets at rest: APNs keys, certificates and passphrases and the identity secrets are sealed
// with AES-256-GCM before they reach PostgreSQL, so a dump of the database gives nothing usable.
// The key comes from HERALD_ENCRYPTION_KEY (32 bytes, base64 or hex; the chart keeps it in a
// Secret); earlier keys in HERALD_ENCRYPTION_KEYS_PREVIOUS still open old rows until `herald
// credentials rotate-key` has sealed every row with the current one. node:crypto does the cipher
// work; only the framing is ours.
//
// Sealed form "HS2": "HS2" | key id (8 bytes: SHA-256 of the key, truncated) | IV (12) | tag (16)
// | data, with associated data naming the value's place (its table, column and app: sealContext),
// so a sealed value copied to another app's row or another column does not open. The tag is
// always 16 bytes (authTagLength), never whatever length the stored value implies.
// "HS1" (the same without associated data) is still opened, and resealed as HS2 by rotate-key. A
// value without either prefix is a row from before encryption, read as it is and sealed by
// rotate-key. With no key configured (a laptop) values are stored as they are.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const MAGIC = Buffer.from('HS2');
const LEGACY_MAGIC = Buffer.from('HS1'); // no associated data
const HEADER_BYTES = 3; // either magic
const ID_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SealError extends Error {
  override name = 'SealError';
}

export interface Keyring {
  /** Seals new values; undefined = store as is. */
  current?: Buffer;
  /** Opens values sealed with any of these too. */
  previous: Buffer[];
}

let keyring: Keyring = { previous: [] };

/** Reads a key as the settings give it: 32 bytes in base64 or hex. */
export function parseKey(text: string, setting: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (key.length !== 32) throw new SealError(`${setting} must be 32 bytes in base64 or hex (openssl rand -base64 32)`);
  return key;
}

/** Set once at start-up by cli/ (the only reader of the environment). */
export function useKeyring(next: Keyring): void {
  keyring = next;
}

const keyId = (key: Buffer) => createHash('sha256').update(key).digest().subarray(0, ID_BYTES);

/** Where a sealed value lives: bound into its seal as associated data. */
export function sealContext(table: string, column: string, appId: string): string {
  return `herald:${table}.${column}:${appId}`;
}

const isHs2 = (value: Buffer) => value.subarray(0, HEADER_BYTES).equals(MAGIC);
export function isSealed(value: Buffer): boolean {
  return isHs2(value) || value.subarray(0, HEADER_BYTES).equals(LEGACY_MAGIC);
}

/** Whether `value` is sealed, bound to its place, with the current key (rotate-key skips those). */
export function isSealedWithCurrent(value: Buffer): boolean {
  return !!keyring.current && isHs2(value) && value.subarray(HEADER_BYTES, HEADER_BYTES + ID_BYTES).equals(keyId(keyring.current));
}

export function seal(plain: Buffer, context: string): Buffer {
  const key = keyring.current;
  if (!key) return plain;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const data = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([MAGIC, keyId(key), iv, cipher.getAuthTag(), data]);
}

export function unseal(value: Buffer, context: string): Buffer {
  if (!isSealed(value)) return value; // stored before encryption
  const at = HEADER_BYTES + ID_BYTES;
  if (value.length < at + IV_BYTES + TAG_BYTES) throw new SealError('a stored secret is cut short: it cannot be opened');
  const id = value.subarray(HEADER_BYTES, at);
  const key = [keyring.current, ...keyring.previous].find((k) => k && keyId(k).equals(id));
  if (!key) throw new SealError('a stored secret is sealed with a key Herald was not given (HERALD_ENCRYPTION_KEY or HERALD_ENCRYPTION_KEYS_PREVIOUS)');
  const decipher = createDecipheriv('aes-256-gcm', key, value.subarray(at, at + IV_BYTES), { authTagLength: TAG_BYTES });
  if (isHs2(value)) decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(value.subarray(at + IV_BYTES, at + IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(value.subarray(at + IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    throw new SealError('a stored secret does not open here: it was altered, or copied from another app or column');
  }
}

/** Text columns (the passphrase): sealed bytes in base64 behind a marker. */
export function sealText(plain: string, context: string): string {
  const sealed = seal(Buffer.from(plain, 'utf8'), context);
  return isSealed(sealed) ? `sealed:${sealed.toString('base64')}` : plain;
}

export function unsealText(value: string, context: string): string {
  return value.startsWith('sealed:') ? unseal(Buffer.from(value.slice(7), 'base64'), context).toString('utf8') : value;
}
