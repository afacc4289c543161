// API keys of a cluster App (spec.apiKeys): the spec is the whole truth for an app the cluster
// manages. A key named in the spec is issued once — the plaintext goes into a Secret owned by the
// App, only the hash into PostgreSQL — its allow-list follows the spec, and a key marked revoked
// or gone from the spec is revoked; its scope follows the spec too (a key keeps its plaintext) (the api's 2 s key cache makes that effective within 5 s).
// Only the keys it issued (source app_resource) are the spec's: a key made with `herald keys
// create` or in the dashboard's Settings stays, as an API segment stays beside the App's segments.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { Pool } from '../../core/store/db.js';
import { inTransaction } from '../../core/store/db.js';
import { createKey, listKeys, revokeKey, setKeyAllowIps, setKeyScope, type KeyRecord, type KeyScope } from '../../core/apps/keys.js';
import { kubeTime } from '../kube/conditions.js';
import type { EventRecorder } from '../kube/events.js';
import { createOwnedSecret } from './owned-secret.js';
import { kubeErrorSentence } from '../kube/client.js';
import type { AppKeyStatus, AppObject } from './types.js';

export interface KeySyncResult {
  keys: AppKeyStatus[];
  /** Set when a key could not be brought in line (shown in the Ready condition). */
  problem?: { reason: string; message: string };
}

/** Secret names carry the key's id, so a re-issued key never collides with an older Secret. */
export function keySecretName(appName: string, keyName: string, keyId: string): string {
  const suffix = `-${keyName}-key-${keyId.slice(0, 8)}`;
  return appName.slice(0, 253 - suffix.length) + suffix;
}

/** A bare address in the spec is a one-address range, as PostgreSQL's cidr prints it. */
export function normaliseAllowIps(ips: readonly string[] | undefined): string[] {
  return [...new Set((ips ?? []).map((ip) => (ip.includes('/') ? ip : `${ip}/${ip.includes(':') ? 128 : 32}`).toLowerCase()))].sort();
}

export async function syncKeys(
  deps: { pool: Pool; core: CoreV1Api; events: EventRecorder },
  app: AppObject,
  appId: string,
): Promise<KeySyncResult> {
  const wanted = app.spec.apiKeys ?? [];
  const previous = new Map((app.status?.keys ?? []).map((k) => [k.name, k]));
  const all = (await listKeys(deps.pool, appId)).filter((k) => k.source === 'app_resource');
  const active = new Map<string, KeyRecord>();
  for (const key of all) if (!key.revokedAt) active.set(key.name, key); // newest last wins
  const latest = new Map<string, KeyRecord>();
  for (const key of all) latest.set(key.name, key);
  const result: KeySyncResult = { keys: [] };
  const wantedActive = new Set(wanted.filter((k) => !k.revoked).map((k) => k.name));

  // Keys no longer wanted stop working first, whatever else fails below.
  for (const key of all) {
    if (key.revokedAt || wantedActive.has(key.name)) continue;
    await revokeKey(deps.pool, appId, key.id);
    deps.events.record(app, 'Normal', 'KeyRevoked', `API key ${key.name} (${key.id}) revoked`);
    key.revokedAt = new Date();
    active.delete(key.name);
  }

  for (const spec of wanted) {
    const current = active.get(spec.name);
    if (spec.revoked || current) {
      const record = current ?? latest.get(spec.name);
      if (current && (spec.scope ?? 'send') !== current.scope) await setKeyScope(deps.pool, current.id, spec.scope ?? 'send');
      if (current) {
        const want = normaliseAllowIps(spec.allowIPs);
        if (want.join() !== normaliseAllowIps(current.allowIps).join()) {
          try {
            await setKeyAllowIps(deps.pool, current.id, want);
          } catch (error) {
            result.problem ??= { reason: 'AllowIPsInvalid', message: `allowIPs of key ${spec.name}: ${kubeErrorSentence(error)}` };
          }
        }
      }
      const prev = previous.get(spec.name);
      result.keys.push(keyStatus(app, spec.name, record, prev));
      continue;
    }
    try {
      const issued = await issueKey(deps, app, appId, spec.name, normaliseAllowIps(spec.allowIPs), spec.scope ?? 'send');
      deps.events.record(app, 'Normal', 'KeyIssued', `API key ${spec.name} issued; its plaintext is in Secret ${issued.secretName}`);
      result.keys.push(issued);
    } catch (error) {
      result.problem ??= { reason: 'KeyNotIssued', message: `API key ${spec.name} could not be issued: ${kubeErrorSentence(error)}` };
    }
  }
  return result;
}

function keyStatus(app: AppObject, name: string, record: KeyRecord | undefined, prev: AppKeyStatus | undefined): AppKeyStatus {
  if (!record) return { name, ...(prev?.revokedAt ? { revokedAt: prev.revokedAt } : {}) };
  const status: AppKeyStatus = {
    name,
    id: record.id,
    secretName: prev?.id === record.id && prev.secretName ? prev.secretName : keySecretName(app.metadata.name, name, record.id),
    createdAt: kubeTime(new Date(record.createdAt)),
  };
  if (record.revokedAt) status.revokedAt = kubeTime(new Date(record.revokedAt));
  return status;
}

/**
 * The key row and its Secret commit together: the row is inserted in a transaction that commits
 * only after the Secret exists, so a key whose plaintext was lost is never valid. (A crash between
 * the two leaves a Secret holding a key that never worked; the App owns it, so it goes with the App.)
 */
async function issueKey(
  deps: { pool: Pool; core: CoreV1Api },
  app: AppObject,
  appId: string,
  name: string,
  allowIps: string[],
  scope: KeyScope,
): Promise<AppKeyStatus> {
  return inTransaction(deps.pool, async (db) => {
    const { record, key } = await createKey(db, appId, { name, allowIps, scope, source: 'app_resource' });
    const secretName = keySecretName(app.metadata.name, name, record.id);
    await createOwnedSecret(deps.core, app, secretName, { 'herald.dev/api-key': name }, { apiKey: key, appId, keyId: record.id });
    return { name, id: record.id, secretName, createdAt: kubeTime(new Date(record.createdAt)) };
  });
}
