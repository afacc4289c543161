// Admin commands without a cluster (DECISIONS "admin interfaces"): apps apply, keys, import.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createPool, type Pool } from '../../core/store/db.js';
import { loadConfig, loadKeyring } from '../../core/config.js';
import { useKeyring } from '../../core/secrets/seal.js';
import { applyAppsFile } from '../../core/apps/file-source.js';
import { getAppByName, type AppRecord } from '../../core/apps/app-store.js';
import { createKey, KEY_SCOPES, listKeys, revokeKey, SCOPE_MEANINGS, type KeyScope } from '../../core/apps/keys.js';
import { importSubscriptions } from '../../core/users/import-installs.js';
import { fail, usageError } from '../runtime.js';
import { isUuid } from '../../core/formats/uuid.js';
import { readKeyRequest } from '../../core/apps/key-requests.js';
import { ValidationError } from '../../core/errors.js';


/** A one-off command's pool: two connections to HERALD_DATABASE_URL, set for a pooler in front like the roles' (core/store/db.ts). */
export function commandPool(): Pool {
  const config = loadConfig(process.env);
  return createPool(config.databaseUrl, { max: 2, applicationName: 'herald-cli', sessionUrl: config.databaseSessionUrl });
}

export async function withPool<T>(work: (pool: Pool) => Promise<T>): Promise<T> {
  useKeyring(loadKeyring(process.env)); // apps apply stores credentials
  const pool = commandPool();
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

/**
 * The app `--app NAME` names: its full name, or for a cluster App (stored as NAMESPACE/NAME) its
 * name alone when no other namespace has an App of that name.
 */
export async function appByName(pool: Pool, name: string | undefined): Promise<AppRecord> {
  if (!name) usageError('name the app with --app NAME');
  const app = await getAppByName(pool, name);
  if (app) return app;
  if (!name.includes('/')) {
    const { rows } = await pool.query<{ name: string }>(
      `SELECT name FROM apps WHERE position('/' in name) > 0 AND substr(name, position('/' in name) + 1) = $1 ORDER BY name`,
      [name],
    );
    if (rows.length === 1) return (await getAppByName(pool, rows[0].name))!;
    if (rows.length > 1) usageError(`${name} names an App in several namespaces: ${rows.map((r) => r.name).join(', ')}; give --app NAMESPACE/NAME`);
  }
  return fail(`no app named ${name}; apply its manifest first (herald apps apply -f FILE), or list them (herald apps list)`);
}

/** `herald apps list`: every app, one line each. */
export async function appsList(): Promise<void> {
  await withPool(async (pool) => {
    const { rows } = await pool.query<{ name: string; id: string; environment: string; apns: boolean; fcm: boolean; overdue: boolean; disabled: boolean }>(
      `SELECT a.name, a.id, a.environment, EXISTS (SELECT 1 FROM app_credentials c WHERE c.app_id = a.id) AS apns,
              EXISTS (SELECT 1 FROM fcm_credentials f WHERE f.app_id = a.id) AS fcm,
              a.invoice_overdue AS overdue, a.disabled
         FROM apps a ORDER BY a.name`,
    );
    process.stdout.write('NAME\tAPP_ID\tENVIRONMENT\tCREDENTIALS\tBILLING\n');
    for (const a of rows) {
      const billing = a.disabled ? 'deleted' : a.overdue ? 'overdue (paused)' : 'ok';
      const credentials = [a.apns && 'apns', a.fcm && 'fcm'].filter(Boolean).join('+') || 'none';
      process.stdout.write(`${[a.name, a.id, a.environment, credentials, billing].join('\t')}\n`);
    }
  });
}

export async function appsApply(file: string | undefined): Promise<void> {
  if (!file) usageError('usage: herald apps apply -f FILE');
  const { eventHttpHosts } = loadConfig(process.env);
  await withPool(async (pool) => {
    for (const { app, credentialsProblem, credentialsReason, fcmProblem, eventsProblem } of await applyAppsFile(pool, file, { eventHttpHosts })) {
      // Drafts only with neither credential (core/apps/sendable.ts); one unusable beside a good one is named.
      const notes: string[] = [];
      if (!app.hasCredentials) notes.push(`sends are drafts: ${credentialsProblem}`);
      else if (credentialsProblem && credentialsReason !== 'NoCredentials') notes.push(`APNs credentials not usable: ${credentialsProblem}`);
      if (fcmProblem) notes.push(`Firebase credentials not usable, Android devices are skipped: ${fcmProblem}`);
      if (eventsProblem) notes.push(`event destinations not applied: ${eventsProblem.message}`);
      process.stdout.write(`${app.name}\t${app.id}${notes.map((n) => `  (${n})`).join('')}\n`);
    }
  });
}

export async function keysCreate(appName: string | undefined, allowIps: string[], name: string | undefined, scope = 'send'): Promise<void> {
  if (!KEY_SCOPES.includes(scope as KeyScope)) usageError(`--scope is ${KEY_SCOPES.map((s) => `${s} (${SCOPE_MEANINGS[s]})`).join(', ')}; not ${scope}`);
  await withPool(async (pool) => {
    const app = await appByName(pool, appName);
    // The dashboard's rule (core/apps/key-requests.ts): a name and an allow-list the column takes.
    let request;
    try {
      request = await readKeyRequest(pool, { name: name ?? 'default', scope, allowIps });
    } catch (error) {
      if (error instanceof ValidationError) usageError(error.issues.map((i) => i.message.replace(/^allow_ips/, '--allow-ip').replace(/^name/, '--name')).join(' '));
      throw error;
    }
    const { key, record } = await createKey(pool, app.id, request);
    process.stderr.write(`key ${record.id} (scope ${record.scope}) created for ${app.name}; it is shown once:\n`);
    process.stdout.write(`${key}\n`);
  });
}

export async function keysRevoke(appName: string | undefined, keyId: string | undefined): Promise<void> {
  if (!keyId) usageError('usage: herald keys revoke --app NAME KEY_ID');
  // A malformed id is a usage error (exit 2, docs/cli.md), told before the database is asked.
  if (!isUuid(keyId)) usageError(`KEY_ID is the key's id as herald keys list shows it (a UUID), not ${keyId}`);
  await withPool(async (pool) => {
    const app = await appByName(pool, appName);
    if (!(await revokeKey(pool, app.id, keyId))) fail(`no active key ${keyId} on ${app.name}`);
    process.stdout.write(`revoked ${keyId}\n`);
  });
}

export async function keysList(appName: string | undefined): Promise<void> {
  await withPool(async (pool) => {
    const app = await appByName(pool, appName);
    process.stdout.write('ID\tNAME\tSCOPE\tALLOW_IPS\tCREATED\tREVOKED\tLAST_USED\tSOURCE\n');
    for (const k of await listKeys(pool, app.id)) {
      const row = [k.id, k.name, k.scope, k.allowIps.join(',') || '*', k.createdAt.toISOString(), k.revokedAt?.toISOString() ?? '-', k.lastUsedAt?.toISOString() ?? '-', k.source];
      process.stdout.write(`${row.join('\t')}\n`);
    }
  });
}

export async function importFile(appName: string | undefined, file: string | undefined): Promise<void> {
  if (!file) usageError('usage: herald import --app NAME FILE');
  await withPool(async (pool) => {
    const app = await appByName(pool, appName);
    const size = (await stat(file)).size;
    const started = Date.now();
    const input = file === '-' ? process.stdin : createReadStream(file);
    const result = await importSubscriptions(pool, app.id, input, (p) => {
      const seconds = (Date.now() - started) / 1000;
      const what = p.phase === 'merging' ? ', merging into subscriptions…' : '';
      process.stderr.write(`\rimported ${p.accepted.toLocaleString('en-US')} rows, ${p.rejected} rejected, ${seconds.toFixed(1)} s${what}`);
    });
    const seconds = (Date.now() - started) / 1000;
    process.stderr.write('\n');
    for (const problem of result.problems) process.stderr.write(`  ${problem}\n`);
    process.stdout.write(
      `imported ${result.accepted} subscriptions into ${app.name} (${result.rejected} lines rejected) in ${seconds.toFixed(1)} s, ${(size / 1e6).toFixed(0)} MB\n`,
    );
  });
}
