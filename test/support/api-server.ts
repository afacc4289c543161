// An in-process api on a loopback port, built from a test env, with a small fetch helper.
//
//   const env = useTestEnv();
//   const api = useTestApi(env);         // registers before/after hooks: started, then closed
//   it('…', async () => { await api.request('GET', '/api/v1/…') });
import { createHttpServer } from '../../core/http/server.js';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApi } from '../../api/server.js';
import { createApiMetrics } from '../../api/shared/metrics.js';
import { PgIdempotencyGuard } from '../../core/idempotency/pg-guard.js';
import type { ApiDeps } from '../../api/shared/deps.js';
import { silentLogger } from '../../core/log.js';
import type { TestEnv } from '../env/index.js';
import { checkAgainstOpenApi } from './openapi-check.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestApi {
  url: string;
  deps: ApiDeps;
  request<T = any>(method: string, path: string, opts?: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

export async function startTestApi(env: TestEnv, overrides: Partial<ApiDeps> = {}): Promise<TestApi> {
  const deps: ApiDeps = {
    pool: overrides.pool ?? env.pool,
    bus: overrides.bus ?? env.bus,
    logger: silentLogger(),
    metrics: createApiMetrics(),
    trustProxyHops: 1,
    idempotency: new PgIdempotencyGuard(env.pool), // tests pick their client address with X-Forwarded-For
    ...overrides,
  };
  const server: Server = createHttpServer(createApi(deps).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    deps,
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.key) headers.authorization ??= `Key ${opts.key}`;
      let body: string | undefined = opts.rawBody;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(url + path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON (metrics) */
      }
      // Every answer is checked against the OpenAPI document (throws on a mismatch).
      checkAgainstOpenApi(method, path, res.status, res.headers.get('content-type'), parsed);
      return { status: res.status, headers: res.headers, body: parsed as any };
    },
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

/**
 * The setup of most api test files as one hook: starts the api on `env` before the suite's tests
 * and closes it after them. Call it inside a describe, after `useTestEnv` (hooks run in order).
 * `overrides` is read when the api starts, so it may name what an earlier before hook made.
 */
export function useTestApi(env: TestEnv, overrides: () => Partial<ApiDeps> = () => ({})): TestApi {
  let api: TestApi | undefined;
  before(async () => {
    api = await startTestApi(env, overrides());
  });
  after(async () => {
    await api?.close();
  });
  const started = (): TestApi => {
    if (!api) throw new Error('test api: not started (used outside a test?)');
    return api;
  };
  return {
    get url() { return started().url; },
    get deps() { return started().deps; },
    request: (method, path, opts) => started().request(method, path, opts),
    close: () => started().close(),
  };
}
