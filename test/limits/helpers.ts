// Shared pieces of the limits suites: apps and keys, an in-process api on port 0, HTTP calls,
// and `herald api` child processes for the cross-process tests.
import { createServer, type Server } from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { Redis } from 'ioredis';
import type { Pool } from '../../core/store/db.js';
import { setCredentials, upsertApp, type AppRecord } from '../../core/apps/app-store.js';
import { createKey } from '../../core/apps/keys.js';
import { upsertSubscription } from '../../core/subscriptions/subscription-store.js';
import { createApi } from '../../api/server.js';
import { createApiMetrics } from '../../api/shared/metrics.js';
import { PgIdempotencyGuard } from '../../core/idempotency/pg-guard.js';
import type { ApiDeps } from '../../api/shared/deps.js';
import { LIMITER_REDIS_OPTIONS } from '../../core/buckets/redis-store.js';
import type { TestEnv } from '../env/index.js';
import { REDIS_URL } from '../env/index.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const silentLogger = pino({ level: 'silent' });

export interface TestApp {
  app: AppRecord;
  keys: string[];
  subscriptionIds: string[];
}

/** An app with credentials, `keyCount` keys and `devices` subscribed installs. */
export async function makeApp(pool: Pool, opts: { keyCount?: number; devices?: number; name?: string } = {}): Promise<TestApp> {
  const app = await upsertApp(pool, {
    name: opts.name ?? `app-${randomBytes(4).toString('hex')}`,
    bundleId: 'dev.herald.test',
    segments: [],
  });
  await setCredentials(pool, app.id, { kind: 'token', keyId: 'ABC123DEFG', teamId: 'TEAM123456', material: Buffer.from('test') });
  const keys: string[] = [];
  for (let i = 0; i < (opts.keyCount ?? 1); i++) keys.push((await createKey(pool, app.id, { name: `k${i}` })).key);
  const subscriptionIds: string[] = [];
  for (let i = 0; i < (opts.devices ?? 2); i++) {
    const token = randomBytes(32).toString('hex');
    subscriptionIds.push((await upsertSubscription(pool, app.id, { token, language: 'en' })).id);
  }
  return { app: { ...app, hasCredentials: true, hasApnsCredentials: true }, keys, subscriptionIds };
}

export interface RunningApi {
  url: string;
  close(): Promise<void>;
}

/** The api in this process on port 0; X-Forwarded-For is trusted one hop so tests choose the caller's IP. */
export async function startApi(env: TestEnv, extra: Partial<ApiDeps>): Promise<RunningApi> {
  const deps: ApiDeps = {
    pool: env.pool,
    bus: env.bus,
    logger: silentLogger,
    metrics: createApiMetrics(),
    trustProxyHops: 1,
    idempotency: new PgIdempotencyGuard(env.pool),
    ...extra,
  };
  const server: Server = createServer(createApi(deps).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export async function call(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  opts: { key?: string; body?: unknown; ip?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== undefined) headers.Authorization = `Key ${opts.key}`;
  if (opts.ip) headers['X-Forwarded-For'] = opts.ip;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try { body = text ? JSON.parse(text) : {}; } catch { body = { text }; }
  return { status: res.status, headers: res.headers, body };
}

/** A list send to the app's first device. */
export function listSend(t: TestApp, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { app_id: t.app.id, contents: { en: 'hello' }, include_subscription_ids: [t.subscriptionIds[0]], ...extra };
}

export function segmentSend(t: TestApp, segment = 'Subscribed Users', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { app_id: t.app.id, contents: { en: 'hello' }, included_segments: [segment], ...extra };
}

export function randomIp(): string {
  const b = randomBytes(3);
  return `10.${b[0]}.${b[1]}.${b[2]}`;
}

/** `herald api` as a child process on a free port; resolves once it listens. */
export async function spawnApi(env: TestEnv, extraEnv: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/herald.js'), 'api'], {
    cwd: ROOT,
    env: env.childEnv({ HERALD_HTTP_PORT: '0', HERALD_HTTP_HOST: '127.0.0.1', HERALD_PRINT_PORT: '1', HERALD_TRUST_PROXY_HOPS: '1', ...extraEnv }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => { stderr += String(d); });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`herald api did not start in 60 s: ${stderr}`)), 60_000);
    child.stdout!.on('data', (d) => {
      out += String(d);
      const m = /listening (\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    });
    child.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`herald api exited ${code ?? signal}: ${stderr}`)); });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

/** A Redis client for the api's buckets, configured like cli/commands/limits.ts. */
export function limiterRedis(url = REDIS_URL): Redis {
  const redis = new Redis(url, { ...LIMITER_REDIS_OPTIONS });
  redis.on('error', () => undefined);
  return redis;
}

export const RATE_HEADERS = [
  'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy',
  'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset',
];

/**
 * test/env's drop() ends the pool and at once drops the database WITH (FORCE); pg-pool's end()
 * does not wait for idle connections to close, so one may be terminated by the DROP and its error
 * reach the pool with no listener (an intermittent uncaught error in the root after-all hook).
 * Idle-client errors during teardown are harmless here; reported to test/env's owner.
 */
export function ignoreIdleClientErrorsOnTeardown(env: TestEnv): void {
  before(() => { env.pool.on('error', () => undefined); });
}
