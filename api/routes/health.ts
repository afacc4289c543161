// /healthz: the process answers. /readyz: the api can record a send: PostgreSQL answers and the
// outbox is below its bound (and any extra check). NATS is reported but does not decide: while it
// is down, sends are recorded with their outbox rows and published when it returns, so taking
// every api out of the load balancer would turn a NATS outage into a full one (docs/operations.md).
// /metrics: Prometheus.
import type { Context } from 'koa';
import type { ApiDeps } from '../shared/deps.js';
import { outboxBacklog } from '../../core/bus/outbox.js';

/** Outbox rows (sends recorded, not yet on the bus) beyond which the api stops taking traffic. */
export const OUTBOX_READY_LIMIT = 100_000;

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref())]);

export function healthz() {
  return async function healthzHandler(ctx: Context): Promise<void> {
    ctx.body = { status: 'ok' };
  };
}

export function readyz(deps: ApiDeps) {
  const checks: Record<string, () => Promise<unknown>> = {
    postgres: async () => {
      if ((await outboxBacklog(deps.pool, OUTBOX_READY_LIMIT)) >= OUTBOX_READY_LIMIT) throw new Error('outbox full');
    },
    ...deps.readinessChecks,
  };
  const reported: Record<string, () => Promise<unknown>> = { nats: () => deps.bus.ping() };
  return async function readyzHandler(ctx: Context): Promise<void> {
    const results: Record<string, string> = {};
    let ready = true;
    const run = (decides: boolean) => async ([name, check]: [string, () => Promise<unknown>]) => {
      try {
        await withTimeout(check(), 2000);
        results[name] = 'ok';
      } catch (error) {
        results[name] = (error as Error).message === 'outbox full' ? 'outbox full' : 'unavailable';
        if (decides) ready = false;
      }
    };
    await Promise.all([...Object.entries(checks).map(run(true)), ...Object.entries(reported).map(run(false))]);
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
