// First middleware: a request id (echoed as X-Request-Id), a child logger, and the metrics of
// every answer by route template (never by raw path, which would explode label cardinality).
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../core/log.js';
import type { ApiMetrics } from '../shared/metrics.js';

export function requestContext(logger: Logger, metrics: ApiMetrics): Middleware {
  return async function requestContextMiddleware(ctx, next) {
    const started = process.hrtime.bigint();
    const incoming = ctx.get('X-Request-Id');
    ctx.state.requestId = /^[A-Za-z0-9._-]{1,64}$/.test(incoming) ? incoming : randomUUID();
    ctx.state.log = logger.child({ requestId: ctx.state.requestId });
    ctx.set('X-Request-Id', ctx.state.requestId);
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.requests.inc({ route, method: ctx.method, status: String(ctx.status) });
      metrics.latency.observe({ route, method: ctx.method }, seconds);
    }
  };
}
