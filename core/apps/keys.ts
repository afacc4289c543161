// REST API keys (DECISIONS "Identity and auth"): a recognisable prefix plus 40 random base62
// characters; only the SHA-256 hash is stored. Shown once, at creation.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Queryable } from '../store/db.js';

export const KEY_PREFIX = 'hk_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function generateKey(): string {
  // Rejection sampling keeps every character uniform (256 is not a multiple of 62).
  let out = '';
  while (out.length < 40) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && out.length < 40) out += BASE62[byte % 62];
    }
  }
  return KEY_PREFIX + out;
}

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** `send`: every call (keys issued before scopes existed); `read`: stats, the list and the dashboard. */
export type KeyScope = 'send' | 'read';
export const KEY_SCOPES: readonly KeyScope[] = ['send', 'read'];

export interface KeyRecord {
  id: string;
  appId: string;
  name: string;
  scope: KeyScope;
  allowIps: string[];
  createdAt: Date;
  revokedAt: Date | null;
}

const toRecord = (r: Record<string, unknown>): KeyRecord => ({
  id: r.id as string,
  appId: r.app_id as string,
  name: r.name as string,
  scope: (r.scope as KeyScope | undefined) ?? 'send',
  allowIps: (r.allow_ips as string[] | null) ?? [],
  createdAt: r.created_at as Date,
  revokedAt: (r.revoked_at as Date | null) ?? null,
});

/** Issues a key; the plaintext is returned once and never stored. */
export async function createKey(
  db: Queryable,
  appId: string,
  opts: { name?: string; allowIps?: string[]; id?: string; scope?: KeyScope } = {},
): Promise<{ record: KeyRecord; key: string }> {
  const key = generateKey();
  const res = await db.query(
    `INSERT INTO api_keys (id, app_id, name, hash, allow_ips, scope) VALUES ($1, $2, $3, $4, $5::cidr[], $6)
     RETURNING id, app_id, name, scope, allow_ips::text[] AS allow_ips, created_at, revoked_at`,
    [opts.id ?? randomUUID(), appId, opts.name ?? 'default', hashKey(key), opts.allowIps ?? [], opts.scope ?? 'send'],
  );
  return { record: toRecord(res.rows[0]), key };
}

export async function revokeKey(db: Queryable, appId: string, keyId: string): Promise<boolean> {
  const res = await db.query(
    'UPDATE api_keys SET revoked_at = now() WHERE app_id = $1 AND id = $2 AND revoked_at IS NULL',
    [appId, keyId],
  );
  return (res.rowCount ?? 0) > 0;
}

export async function listKeys(db: Queryable, appId: string): Promise<KeyRecord[]> {
  const res = await db.query(
    'SELECT id, app_id, name, scope, allow_ips::text[] AS allow_ips, created_at, revoked_at FROM api_keys WHERE app_id = $1 ORDER BY created_at, id',
    [appId],
  );
  return res.rows.map(toRecord);
}

export async function setKeyAllowIps(db: Queryable, keyId: string, allowIps: string[]): Promise<void> {
  await db.query('UPDATE api_keys SET allow_ips = $2::cidr[] WHERE id = $1', [keyId, allowIps]);
}

export async function setKeyScope(db: Queryable, keyId: string, scope: KeyScope): Promise<void> {
  await db.query('UPDATE api_keys SET scope = $2 WHERE id = $1', [keyId, scope]);
}
