// /healthz: the process answers. /readyz: PostgreSQL and NATS answer (and any extra check), so a
// load balancer sends no traffic to an api that cannot record a send. /metrics: Prometheus.
import type { Context } from 'koa';
import type { ApiDeps } from '../deps.js';

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref())]);

export function healthz() {
  return async function healthzHandler(ctx: Context): Promise<void> {
    ctx.body = { status: 'ok' };
  };
}

export function readyz(deps: ApiDeps) {
  const checks: Record<string, () => Promise<unknown>> = {
    postgres: () => deps.pool.query('SELECT 1'),
    nats: () => deps.bus.ping(),
    ...deps.readinessChecks,
  };
  return async function readyzHandler(ctx: Context): Promise<void> {
    const results: Record<string, string> = {};
    let ready = true;
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await withTimeout(check(), 2000);
          results[name] = 'ok';
        } catch {
          results[name] = 'unavailable';
          ready = false;
        }
      }),
    );
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not ready', checks: results };
  };
}

export function metricsEndpoint(deps: ApiDeps) {
  return async function metricsHandler(ctx: Context): Promise<void> {
    ctx.type = deps.metrics.registry.contentType;
    ctx.body = await deps.metrics.registry.metrics();
  };
}
