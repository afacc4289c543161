// A key asked for by a person (the dashboard's Settings, issue 40 point 2), checked before it is
// made: its name, scope and allow-list, each refusal a sentence naming its field. An address or
// range is what the api_keys.allow_ips column (cidr) takes, asked of PostgreSQL itself, so the check
// and the column cannot disagree (10.0.0.1/8 is refused by both: bits set right of the mask). And
// the one rule of revoking from outside the cluster: an App resource's key is the App's to revoke.
import { ConflictError, NotFoundError, ValidationError, type FieldIssue } from '../errors.js';
import type { Queryable } from '../store/db.js';
import { KEY_SCOPES, revokeKey, type KeyScope } from './keys.js';

export const KEY_REQUEST_LIMITS = {
  /** As an App resource's key name (the CRD's maxLength). */
  name: 63,
  /** As an App resource's allowIPs (the CRD's maxItems). */
  allow_ips: 100,
  /** An IPv6 range is at most 43 characters. */
  allow_ip_chars: 64,
} as const;

export interface KeyRequest {
  name: string;
  scope: KeyScope;
  allowIps: string[];
}

const INVALID_TEXT = '22P02';

/** Whether PostgreSQL's cidr type takes the text (a bare address is a one-address range). */
async function isCidr(db: Queryable, text: string): Promise<boolean> {
  try {
    await db.query('SELECT $1::cidr', [text]);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === INVALID_TEXT) return false;
    throw error;
  }
}

/** The request read and checked; a ValidationError naming each refused field. */
export async function readKeyRequest(db: Queryable, input: { name: string; scope: string; allowIps: string[] }): Promise<KeyRequest> {
  const issues: FieldIssue[] = [];
  const name = input.name.trim();
  if (!name) issues.push({ field: 'name', message: 'name is required: what the key is for, as a person reads it.' });
  else if ([...name].length > KEY_REQUEST_LIMITS.name) issues.push({ field: 'name', message: `name is longer than ${KEY_REQUEST_LIMITS.name} characters.` });
  if (!KEY_SCOPES.includes(input.scope as KeyScope)) issues.push({ field: 'scope', message: `scope is one of ${KEY_SCOPES.join(', ')}.` });
  const allowIps = [...new Set(input.allowIps.map((s) => s.trim()).filter(Boolean))];
  if (allowIps.length > KEY_REQUEST_LIMITS.allow_ips) issues.push({ field: 'allow_ips', message: `allow_ips holds at most ${KEY_REQUEST_LIMITS.allow_ips} addresses or ranges.` });
  else {
    for (const ip of allowIps) {
      if (ip.length > KEY_REQUEST_LIMITS.allow_ip_chars || !(await isCidr(db, ip))) {
        issues.push({ field: 'allow_ips', message: `allow_ips: "${ip.slice(0, 40)}" is not an address or a range such as 10.0.0.0/8 (with no bits set after the mask).` });
      }
    }
  }
  if (issues.length) throw new ValidationError(issues);
  return { name, scope: input.scope as KeyScope, allowIps };
}

/** Revokes the app's key made outside the App resource; an App resource's key is a 409 naming the App. */
export async function revokeOwnKey(db: Queryable, appId: string, keyId: string, appName: string): Promise<void> {
  const res = await db.query<{ source: string; revoked: boolean }>('SELECT source, revoked_at IS NOT NULL AS revoked FROM api_keys WHERE app_id = $1 AND id = $2', [appId, keyId]);
  const key = res.rows[0];
  if (!key) throw new NotFoundError('No such key in this app.');
  if (key.source === 'app_resource') throw new ConflictError(`This key comes from the App resource ${appName} (spec.apiKeys): revoke it there.`);
  if (!key.revoked) await revokeKey(db, appId, keyId);
}
