// REST API key lookup by hash with a short cache: the hot path skips PostgreSQL, and a revoked
// key still stops working within the 5 seconds DECISIONS allows (entries live 2 s).
import { BlockList, isIP } from 'node:net';
import type { Queryable } from '../../core/store/db.js';
import { hashKey, type KeyScope } from '../../core/apps/keys.js';
import { keyUse } from './key-use.js';

export interface KeyIdentity {
  keyId: string;
  appId: string;
  scope: KeyScope;
  revoked: boolean;
  allowList?: BlockList; // absent: any address
}

const TTL_MS = 2000;
const MAX_ENTRIES = 10_000;

export class KeyCache {
  private readonly entries = new Map<string, { expires: number; identity: KeyIdentity | null }>();

  constructor(private readonly db: Queryable, private readonly ttlMs = TTL_MS) {}

  async lookup(key: string): Promise<KeyIdentity | null> {
    const hash = hashKey(key);
    const cacheKey = hash.toString('base64');
    const hit = this.entries.get(cacheKey);
    if (hit && hit.expires > Date.now()) return this.used(hit.identity);
    const res = await this.db.query({
      name: 'herald-key-lookup',
      text: `SELECT k.id, k.app_id, k.scope, k.allow_ips::text[] AS allow_ips, (k.revoked_at IS NOT NULL OR a.disabled) AS revoked
               FROM api_keys k JOIN apps a ON a.id = k.app_id WHERE k.hash = $1`,
      values: [hash],
    });
    const row = res.rows[0];
    const identity: KeyIdentity | null = row
      ? { keyId: row.id, appId: row.app_id, scope: row.scope, revoked: row.revoked, allowList: toBlockList(row.allow_ips) }
      : null;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear(); // bounded: a flood of wrong keys cannot grow it
    this.entries.set(cacheKey, { expires: Date.now() + this.ttlMs, identity });
    return this.used(identity);
  }

  /** A valid key presented is a use (Settings' "last used"); kept in memory, written once a minute. */
  private used(identity: KeyIdentity | null): KeyIdentity | null {
    if (identity && !identity.revoked) keyUse(this.db).note(identity.keyId);
    return identity;
  }
}

export function toBlockList(cidrs: string[] | null): BlockList | undefined {
  if (!cidrs?.length) return undefined;
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [net, bits] = cidr.split('/');
    const type = isIP(net) === 6 ? 'ipv6' : 'ipv4';
    list.addSubnet(net, Number(bits ?? (type === 'ipv6' ? 128 : 32)), type);
  }
  return list;
}

export function ipAllowed(identity: Pick<KeyIdentity, 'allowList'>, ip: string): boolean {
  if (!identity.allowList) return true;
  const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  return identity.allowList.check(ip, type);
}
