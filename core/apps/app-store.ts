// Apps in PostgreSQL: the one place the api, senders and controller read an app's state from.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../store/db.js';
import { isSealedWithCurrent, seal, sealContext, sealText, unseal, unsealText } from '../secrets/seal.js';
import type { AudienceCondition, TagCondition } from '../send-model/request.js';
import type { StoredCredentials } from './credentials.js';
import { segmentDefinitions, type SegmentRef } from './segment-definitions.js';
import { hasPushCredentialsSql } from './sendable.js';

export interface SegmentDefinition {
  name: string;
  conditions: TagCondition[]; // all must match
}

/**
 * A segment the app made through the API (table `segments`, issue 27): `filters` as the body gave
 * them, `groups` as the one filters validator read them. Loaded with the app, so every reader of
 * segments resolves them from the same record (core/audience/segments.ts).
 */
export interface ApiSegment {
  id: string;
  name: string;
  filters: Record<string, unknown>[];
  groups: AudienceCondition[][];
  created_at: string;
  updated_at: string;
}

export interface AppRecord {
  id: string;
  name: string;
  bundleId: string;
  environment: 'production' | 'sandbox';
  invoiceOverdue: boolean;
  /** The App resource's segments (spec.segments), the GitOps source. */
  segments: SegmentDefinition[];
  /** The segments made through the API, oldest first (absent: none read, as in a hand-made record). */
  apiSegments?: ApiSegment[];
  disabled: boolean;
  /** APNs or Firebase credentials, or both (core/apps/sendable.ts): without either, sends are drafts. */
  hasCredentials: boolean;
  /** APNs credentials are stored (a token key or a certificate). */
  hasApnsCredentials: boolean;
  /** Firebase credentials are stored (a service account, issue 39). */
  hasFcmCredentials: boolean;
  /** What the stored credentials are (absent: none, or not read): Apple takes some push types over token auth only. */
  credentialsKind?: 'token' | 'certificate';
  /** spec.liveActivities.broadcast: Live Activity updates go through Apple's broadcast channels (issue 29). */
  liveActivityBroadcast: boolean;
}

export interface AppDesiredState {
  name: string;
  appId?: string; // kept when given (migrations from another service), else generated once
  bundleId: string;
  environment?: 'production' | 'sandbox';
  invoiceOverdue?: boolean;
  segments?: SegmentDefinition[];
  liveActivityBroadcast?: boolean;
}

const SELECT_APP = `SELECT a.id, a.name, a.bundle_id, a.environment, a.invoice_overdue, a.segments, a.disabled, a.live_activity_broadcast,
  ${hasPushCredentialsSql('a')} AS has_credentials,
  EXISTS (SELECT 1 FROM app_credentials c WHERE c.app_id = a.id) AS has_apns_credentials,
  EXISTS (SELECT 1 FROM fcm_credentials f WHERE f.app_id = a.id) AS has_fcm_credentials,
  (SELECT c.kind FROM app_credentials c WHERE c.app_id = a.id) AS credentials_kind,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('id', g.id, 'name', g.name, 'version', g.updated_at::text,
     'created_at', g.created_at, 'updated_at', g.updated_at) ORDER BY g.created_at, g.id), '[]')
     FROM segments g WHERE g.app_id = a.id) AS api_segments FROM apps a`;

export function toApp(r: Record<string, unknown>): AppRecord {
  return {
    id: r.id as string,
    name: r.name as string,
    bundleId: r.bundle_id as string,
    environment: r.environment as AppRecord['environment'],
    invoiceOverdue: r.invoice_overdue as boolean,
    segments: r.segments as SegmentDefinition[],
    disabled: r.disabled as boolean,
    hasCredentials: r.has_credentials as boolean,
    hasApnsCredentials: r.has_apns_credentials === true,
    hasFcmCredentials: r.has_fcm_credentials === true,
    liveActivityBroadcast: r.live_activity_broadcast === true,
    ...(typeof r.credentials_kind === 'string' ? { credentialsKind: r.credentials_kind as NonNullable<AppRecord['credentialsKind']> } : {}),
  };
}

/** The app of a row, with its API segments' definitions (kept by version: segment-definitions.ts). */
async function withApiSegments(db: Queryable, r: Record<string, unknown>): Promise<AppRecord> {
  const refs = (r.api_segments ?? []) as SegmentRef[];
  const definitions = refs.length ? await segmentDefinitions(db, refs) : [];
  const apiSegments: ApiSegment[] = [];
  refs.forEach((ref, i) => {
    const d = definitions[i];
    if (d) apiSegments.push({ id: ref.id, name: ref.name, filters: d.filters, groups: d.groups, created_at: ref.created_at, updated_at: ref.updated_at });
  });
  return { ...toApp(r), apiSegments };
}

export class AppIdConflictError extends Error {
  override name = 'AppIdConflictError';
}

/**
 * Creates or updates an app by name. The app id never changes once set, and an id belongs to the
 * app that first held it: another App (another name, in any namespace) naming it in
 * spec.appId is refused, without saying whose it is. Moving an id to another App is an admin's
 * act: `herald apps move-id` (docs/security.md).
 */
export async function upsertApp(db: Queryable, desired: AppDesiredState): Promise<AppRecord> {
  const existing = await getAppByName(db, desired.name);
  if (existing && desired.appId && desired.appId !== existing.id) {
    throw new AppIdConflictError(`app ${desired.name} already has app id ${existing.id}; an app id cannot change`);
  }
  if (!existing && desired.appId) {
    const holder = await db.query('SELECT 1 FROM apps WHERE id = $1', [desired.appId]);
    if (holder.rowCount) {
      throw new AppIdConflictError(
        `app id ${desired.appId} belongs to another app; an app id moves only when an administrator runs herald apps move-id`,
      );
    }
  }
  await db.query(
    `INSERT INTO apps (id, name, bundle_id, environment, invoice_overdue, segments, live_activity_broadcast, disabled)
     VALUES ($1, $2, $3, $4, $5, $6, $7, false)
     ON CONFLICT (name) DO UPDATE SET bundle_id = EXCLUDED.bundle_id, environment = EXCLUDED.environment,
       invoice_overdue = EXCLUDED.invoice_overdue, segments = EXCLUDED.segments,
       live_activity_broadcast = EXCLUDED.live_activity_broadcast, disabled = false, updated_at = now()`,
    [
      existing?.id ?? desired.appId ?? randomUUID(),
      desired.name,
      desired.bundleId,
      desired.environment ?? 'production',
      desired.invoiceOverdue ?? false,
      JSON.stringify(desired.segments ?? []),
      desired.liveActivityBroadcast ?? false,
    ],
  );
  return (await getAppByName(db, desired.name))!;
}

export async function getApp(db: Queryable, id: string): Promise<AppRecord | undefined> {
  // Named: prepared once per connection (the send path reads the app on every call).
  const res = await db.query({ name: 'herald-get-app', text: `${SELECT_APP} WHERE a.id = $1`, values: [id] });
  return res.rows[0] ? withApiSegments(db, res.rows[0]) : undefined;
}

export async function getAppByName(db: Queryable, name: string): Promise<AppRecord | undefined> {
  const res = await db.query(`${SELECT_APP} WHERE a.name = $1`, [name]);
  return res.rows[0] ? withApiSegments(db, res.rows[0]) : undefined;
}

export async function setInvoiceOverdue(db: Queryable, appId: string, overdue: boolean): Promise<void> {
  await db.query('UPDATE apps SET invoice_overdue = $2, updated_at = now() WHERE id = $1', [appId, overdue]);
}

/** Disables a deleted app: its keys stop working, its history stays. */
export async function disableApp(db: Queryable, appId: string): Promise<void> {
  await db.query('UPDATE apps SET disabled = true, updated_at = now() WHERE id = $1', [appId]);
  await db.query('UPDATE api_keys SET revoked_at = now() WHERE app_id = $1 AND revoked_at IS NULL', [appId]);
}

// Each sealed value is bound to its app and column (core/secrets/seal.ts).
const MATERIAL = (appId: string) => sealContext('app_credentials', 'material', appId);
const PASSPHRASE = (appId: string) => sealContext('app_credentials', 'passphrase', appId);
// The context core/fcm/credentials-store.ts seals the Firebase private key with.
const FCM_PRIVATE_KEY = (appId: string) => sealContext('fcm_credentials', 'private_key', appId);

export async function setCredentials(db: Queryable, appId: string, creds: StoredCredentials | null): Promise<void> {
  if (!creds) {
    await db.query('DELETE FROM app_credentials WHERE app_id = $1', [appId]);
    return;
  }
  await db.query(
    `INSERT INTO app_credentials (app_id, kind, key_id, team_id, material, passphrase, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (app_id) DO UPDATE SET kind = EXCLUDED.kind, key_id = EXCLUDED.key_id, team_id = EXCLUDED.team_id,
       material = EXCLUDED.material, passphrase = EXCLUDED.passphrase, expires_at = EXCLUDED.expires_at, updated_at = now()`,
    // Sealed at rest (core/secrets/seal.ts): a dump of the table gives nothing usable.
    [appId, creds.kind, creds.keyId ?? null, creds.teamId ?? null, seal(creds.material, MATERIAL(appId)), creds.passphrase === undefined ? null : sealText(creds.passphrase, PASSPHRASE(appId)), creds.expiresAt ?? null],
  );
}

export async function getCredentials(db: Queryable, appId: string): Promise<StoredCredentials | undefined> {
  const res = await db.query(
    'SELECT kind, key_id, team_id, material, passphrase, expires_at FROM app_credentials WHERE app_id = $1',
    [appId],
  );
  const r = res.rows[0];
  if (!r) return undefined;
  return {
    kind: r.kind,
    keyId: r.key_id ?? undefined,
    teamId: r.team_id ?? undefined,
    material: unseal(r.material, MATERIAL(appId)),
    passphrase: r.passphrase === null ? undefined : unsealText(r.passphrase, PASSPHRASE(appId)),
    expiresAt: r.expires_at ?? undefined,
  };
}

/**
 * An administrator's move of an app id to another App name (`herald apps move-id`): the app row,
 * with its keys, installs and sends, takes the new name, so the App of that name adopts the id.
 * Refused when the new name already has an app of its own.
 */
export async function moveAppId(db: Queryable, appId: string, newName: string): Promise<AppRecord> {
  const taken = await getAppByName(db, newName);
  if (taken && taken.id !== appId) throw new AppIdConflictError(`app ${newName} already has app id ${taken.id}`);
  const res = await db.query('UPDATE apps SET name = $2, updated_at = now() WHERE id = $1', [appId, newName]);
  if (!res.rowCount) throw new AppIdConflictError(`no app has id ${appId}`);
  return (await getAppByName(db, newName))!;
}

/**
 * Seals every stored credential with the current key (`herald credentials rotate-key`): rows in
 * clear from before encryption and rows under a previous key alike. Returns how many changed.
 */
export async function resealCredentials(db: Queryable): Promise<number> {
  const rows = (await db.query('SELECT app_id, material, passphrase FROM app_credentials')).rows;
  let changed = 0;
  for (const r of rows) {
    if (isSealedWithCurrent(r.material) && (r.passphrase === null || isSealedWithCurrent(Buffer.from(String(r.passphrase).slice(7), 'base64')))) continue;
    const material = seal(unseal(r.material, MATERIAL(r.app_id)), MATERIAL(r.app_id));
    const passphrase = r.passphrase === null ? null : sealText(unsealText(r.passphrase, PASSPHRASE(r.app_id)), PASSPHRASE(r.app_id));
    await db.query('UPDATE app_credentials SET material = $2, passphrase = $3 WHERE app_id = $1', [r.app_id, material, passphrase]);
    changed++;
  }
  // The Firebase private keys (migration 070), sealed under the same key.
  for (const f of (await db.query('SELECT app_id, private_key FROM fcm_credentials')).rows) {
    if (isSealedWithCurrent(f.private_key)) continue;
    const privateKey = seal(unseal(f.private_key, FCM_PRIVATE_KEY(f.app_id)), FCM_PRIVATE_KEY(f.app_id));
    await db.query('UPDATE fcm_credentials SET private_key = $2 WHERE app_id = $1', [f.app_id, privateKey]);
    changed++;
  }
  return changed;
}
