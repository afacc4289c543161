// Test fixtures: apps with push credentials, keys and subscriptions, made through the same store
// functions the CLI and the controller use.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { Pool } from '../../core/store/db.js';
import { setCredentials, upsertApp, setInvoiceOverdue, type AppRecord, type SegmentDefinition } from '../../core/apps/app-store.js';
import { createKey } from '../../core/apps/keys.js';

export function makeP8(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

export interface TestApp {
  app: AppRecord;
  key: string;
  keyId: string;
  p8: string;
}

export async function makeApp(
  pool: Pool,
  opts: { name?: string; credentials?: boolean; segments?: SegmentDefinition[]; overdue?: boolean; allowIps?: string[]; bundleId?: string } = {},
): Promise<TestApp> {
  const app = await upsertApp(pool, {
    name: opts.name ?? `app-${randomUUID().slice(0, 8)}`,
    bundleId: opts.bundleId ?? 'com.example.herald',
    environment: 'sandbox',
    segments: opts.segments,
  });
  const p8 = makeP8();
  if (opts.credentials !== false) {
    await setCredentials(pool, app.id, { kind: 'token', keyId: 'KEYID12345', teamId: 'TEAMID1234', material: Buffer.from(p8) });
  }
  if (opts.overdue) await setInvoiceOverdue(pool, app.id, true);
  const { key, record } = await createKey(pool, app.id, { allowIps: opts.allowIps });
  return { app: { ...app, hasCredentials: opts.credentials !== false, hasApnsCredentials: opts.credentials !== false }, key, keyId: record.id, p8 };
}

export interface DeviceSpec {
  token?: string;
  external_id?: string;
  language?: string;
  timezone?: string;
  tags?: Record<string, string>;
  subscribed?: boolean;
  last_active?: Date | null;
}

/** Inserts devices directly (fast, any last_active); returns their subscription ids in order. */
export async function addDevices(pool: Pool, appId: string, devices: DeviceSpec[]): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < devices.length; i += 1000) {
    const batch = devices.slice(i, i + 1000);
    const rows = batch.map((d) => ({
      id: randomUUID(),
      token: d.token ?? randomUUID().replace(/-/g, '') + randomUUID().replace(/-/g, ''),
      external_id: d.external_id ?? null,
      language: d.language ?? null,
      timezone: d.timezone ?? null,
      tags: d.tags ?? {},
      subscribed: d.subscribed ?? true,
      last_active: d.last_active === undefined ? new Date().toISOString() : d.last_active?.toISOString() ?? null,
    }));
    await pool.query(
      `INSERT INTO subscriptions (id, app_id, token, external_id, language, timezone, tags, subscribed, last_active)
       SELECT r.id, $1, r.token, r.external_id, r.language, r.timezone, r.tags, r.subscribed, r.last_active
         FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, token text, external_id text, language text, timezone text,
                                                 tags jsonb, subscribed boolean, last_active timestamptz)`,
      [appId, JSON.stringify(rows)],
    );
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}
