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

/**
 * `read`: stats, the list and the dashboard; `send`: every call (keys issued before scopes
 * existed); `admin`: what `send` may, and creating and revoking the app's keys in the dashboard.
 * Each scope may do what the ones before it may: ask `mayUse`, never compare names.
 */
export type KeyScope = 'read' | 'send' | 'admin';
export const KEY_SCOPES: readonly KeyScope[] = ['read', 'send', 'admin'];
/** What each scope is for, in the words of `herald keys create --help` and the dashboard. */
export const SCOPE_MEANINGS: Record<KeyScope, string> = {
  read: 'stats, the list and the dashboard, read only',
  send: 'every REST call, and composing, cancelling and changing in the dashboard',
  admin: 'what send may, and creating and revoking the app\'s keys in the dashboard',
};

/** Whether a key of scope `scope` may do what needs `needed` (read < send < admin). */
export const mayUse = (scope: KeyScope, needed: KeyScope): boolean => KEY_SCOPES.indexOf(scope) >= KEY_SCOPES.indexOf(needed);

/** Where a key was made (migration 075): an App resource's keys are the App's to change. */
export type KeySource = 'cli' | 'app_resource' | 'dashboard';

export interface KeyRecord {
  id: string;
  appId: string;
  name: string;
  scope: KeyScope;
  allowIps: string[];
  createdAt: Date;
  revokedAt: Date | null;
  source: KeySource;
  /** To the minute (api/shared/key-use.ts); null: not used since it was tracked. */
  lastUsedAt: Date | null;
}

const toRecord = (r: Record<string, unknown>): KeyRecord => ({
  id: r.id as string,
  appId: r.app_id as string,
  name: r.name as string,
  scope: (r.scope as KeyScope | undefined) ?? 'send',
  allowIps: (r.allow_ips as string[] | null) ?? [],
  createdAt: r.created_at as Date,
  revokedAt: (r.revoked_at as Date | null) ?? null,
  source: (r.source as KeySource | undefined) ?? 'cli',
  lastUsedAt: (r.last_used_at as Date | null) ?? null,
});

const KEY_COLUMNS = 'id, app_id, name, scope, allow_ips::text[] AS allow_ips, created_at, revoked_at, source, last_used_at';

/** Issues a key; the plaintext is returned once and never stored. */
export async function createKey(
  db: Queryable,
  appId: string,
  opts: { name?: string; allowIps?: string[]; id?: string; scope?: KeyScope; source?: KeySource } = {},
): Promise<{ record: KeyRecord; key: string }> {
  const key = generateKey();
  const res = await db.query(
    `INSERT INTO api_keys (id, app_id, name, hash, allow_ips, scope, source) VALUES ($1, $2, $3, $4, $5::cidr[], $6, $7)
     RETURNING ${KEY_COLUMNS}`,
    [opts.id ?? randomUUID(), appId, opts.name ?? 'default', hashKey(key), opts.allowIps ?? [], opts.scope ?? 'send', opts.source ?? 'cli'],
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
    `SELECT ${KEY_COLUMNS} FROM api_keys WHERE app_id = $1 ORDER BY created_at, id`,
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
