// Fixtures of the delivery tests: an app with token credentials the simulator accepts, devices
// inserted in bulk, a send created through the same code path as the api, and waits on it.
import type { Pool } from '../../core/store/db.js';
import type { Bus } from '../../core/bus/jetstream.js';
import { upsertApp, setCredentials, getApp, type AppRecord, type SegmentDefinition } from '../../core/apps/app-store.js';
import { createSend } from '../../core/send/create-send.js';
import type { CreatedSend } from '../../core/send-model/response.js';
import { validateSendRequest } from '../../core/validation/validate-send.js';
import { toStats, type SendStats } from '../../core/send/stats.js';
import { silentLogger } from '../../core/log.js';
import { readFile } from 'node:fs/promises';
import type { Redis } from 'ioredis';
import * as OneSignal from '@onesignal/node-onesignal';
import { generateApnsKeyPair, randomAppleId, startApnsSim, type ApnsKeyPair, type ApnsSim, type ApnsSimOptions } from '../../apns-sim/index.js';
import { startSender, type Sender, type SenderOptions, type WorkerSettings } from '../../sender/index.js';
import { DEFAULT_RETENTION } from '../../core/send/retention.js';
import { createKey } from '../../core/apps/keys.js';
import type { TestEnv } from '../env/index.js';
import { waitFor } from '../support/wait.js';
import { startTestApi, type TestApi } from '../support/api-server.js';

export interface TestApp {
  app: AppRecord;
  key: ApnsKeyPair;
  teamId: string;
}

export async function createTestApp(pool: Pool, name: string, opts: { segments?: SegmentDefinition[]; key?: ApnsKeyPair; teamId?: string } = {}): Promise<TestApp> {
  const key = opts.key ?? generateApnsKeyPair();
  const teamId = opts.teamId ?? randomAppleId();
  const app = await upsertApp(pool, { name, bundleId: `com.example.${name.replace(/\W/g, '')}`, segments: opts.segments });
  await setCredentials(pool, app.id, { kind: 'token', keyId: key.keyId, teamId, material: Buffer.from(key.privateKeyP8) });
  return { app: (await getApp(pool, app.id))!, key, teamId };
}

/** A 64-hex-digit token: `prefix` then the number, zero-padded. */
export const token = (prefix: string, i: number) => prefix + i.toString(16).padStart(64 - prefix.length, '0');

/** Inserts `count` subscribed devices in one statement; returns their tokens. */
export async function addDevices(
  pool: Pool,
  appId: string,
  count: number,
  opts: { prefix?: string; start?: number; language?: string | null; tags?: Record<string, string>; externalIdPrefix?: string } = {},
): Promise<string[]> {
  const prefix = opts.prefix ?? 'a';
  const start = opts.start ?? 0;
  const tokens = Array.from({ length: count }, (_, i) => token(prefix, start + i));
  await pool.query(
    `INSERT INTO subscriptions (id, app_id, token, language, tags, external_id, last_active)
     SELECT gen_random_uuid(), $1, t, $3, $4::jsonb, CASE WHEN $5::text IS NULL THEN NULL ELSE $5 || n END, now()
       FROM unnest($2::text[]) WITH ORDINALITY AS u(t, n)`,
    [appId, tokens, opts.language ?? null, JSON.stringify(opts.tags ?? {}), opts.externalIdPrefix ?? null],
  );
  return tokens;
}

export async function send(deps: { pool: Pool; bus: Bus }, app: AppRecord, body: Record<string, unknown>): Promise<CreatedSend> {
  const request = validateSendRequest({
    body: { app_id: app.id, ...body },
    app: { id: app.id, bundleId: app.bundleId, segmentNames: app.segments.map((s) => s.name) },
    now: new Date(),
  });
  return createSend({ ...deps, logger: silentLogger() }, app, request);
}

export async function stats(pool: Pool, id: number): Promise<SendStats> {
  const res = await pool.query('SELECT id, app_id, status, total_recipients, sent, failed, skipped, left_out, clicked FROM sends WHERE id = $1', [id]);
  return toStats(res.rows[0]);
}

/** Polls until the send is approved or draft; returns every distinct status seen on the way. */
export async function waitFinal(pool: Pool, id: number, timeoutMs = 60_000): Promise<{ final: SendStats; seen: string[] }> {
  const seen: string[] = [];
  const done = await waitFor(`send ${id} approved or draft`, async () => {
    const s = await stats(pool, id);
    if (seen[seen.length - 1] !== s.status) seen.push(s.status);
    // The counting invariant holds at every moment (contract "Stats response body"): broken, the wait ends.
    if (s.processed !== s.sent + s.failed + s.skipped) return { broken: `processed ${s.processed} is not sent+failed+skipped` };
    if (s.status === 'approved' || s.status === 'draft') return { final: s };
    throw new Error(`still ${s.status}: ${JSON.stringify(s)}`); // "not yet", and what a timeout reports
  }, timeoutMs, 50);
  if ('broken' in done) throw new Error(done.broken);
  return { final: done.final, seen };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An in-process sender on a test env's servers, pointed at a simulator, with short test timings. */
export async function startTestSender(env: { pool: Pool; bus: Bus; redis: Redis; redisPrefix: string }, sim: ApnsSim, worker: Partial<WorkerSettings> = {}, extra: Partial<SenderOptions> = {}): Promise<Sender> {
  return startSender({
    pool: env.pool,
    bus: env.bus,
    logger: silentLogger(),
    redis: env.redis,
    redisPrefix: env.redisPrefix,
    apns: { url: sim.url, ca: await readFile(sim.caFile, 'utf8') },
    concurrency: 4,
    worker: { leaseMs: 5000, backoff: { baseMs: 20, maxMs: 200 }, ...worker },
    dutyEveryMs: 200,
    retention: DEFAULT_RETENTION,
    ...extra,
  });
}

export interface DeliveryStack {
  app: TestApp;
  sim: ApnsSim;
  sender: Sender;
  api: TestApi;
  /** An api key of the app. */
  key: string;
  /** OneSignal's official client with that key, only its base server changed to the api. */
  client: OneSignal.DefaultApi;
  /** Closes the api, the sender, then the simulator; `simBeforeSender` closes the simulator before the sender. */
  close(opts?: { simBeforeSender?: boolean }): Promise<void>;
}

/**
 * What the end-to-end delivery tests each set up: an app, a simulator that accepts its key (plus
 * `simOptions`, e.g. rules), a sender on it, the api, an api key and the official client.
 * Should a step fail, what had started is closed before the error is thrown.
 */
export async function startDeliveryStack(env: TestEnv, appName: string, simOptions: Omit<ApnsSimOptions, 'keys'> = {}, senderOptions: Partial<SenderOptions> = {}): Promise<DeliveryStack> {
  const app = await createTestApp(env.pool, appName);
  let sim: ApnsSim | undefined;
  let sender: Sender | undefined;
  let api: TestApi | undefined;
  const close = async ({ simBeforeSender = false } = {}) => {
    await api?.close();
    if (simBeforeSender) await sim?.close();
    await sender?.stop();
    if (!simBeforeSender) await sim?.close();
  };
  try {
    sim = await startApnsSim({ keys: [{ keyId: app.key.keyId, teamId: app.teamId, publicKey: app.key.publicKeyPem }], ...simOptions });
    sender = await startTestSender(env, sim, {}, senderOptions);
    api = await startTestApi(env);
    const { key } = await createKey(env.pool, app.app.id);
    const client = new OneSignal.DefaultApi(OneSignal.createConfiguration({ restApiKey: key, baseServer: new OneSignal.ServerConfiguration(`${api.url}/api/v1`, {}) }));
    return { app, sim, sender, api, key, client, close };
  } catch (err) {
    await close().catch(() => undefined); // the first error is the one to see
    throw err;
  }
}
