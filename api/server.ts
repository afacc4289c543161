// The Koa application of the HTTP front: the health endpoints, every REST call from its declaration
// (api/calls/: one mount, in DECISIONS "Limits"' order of checks) and the dashboard.
import Koa from 'koa';
import Router from '@koa/router';
import type { ApiDeps } from './shared/deps.js';
import { KeyCache } from './shared/key-cache.js';
import { clientIp } from './shared/client-ip.js';
import { requestContext } from './middleware/request-context.js';
import { errorBody } from './middleware/errors.js';
import { outageLog } from '../core/faults/outage-log.js';
import { healthz, metricsEndpoint, readyz } from './routes/health.js';
import { clearWords } from './middleware/clear-words.js';
import { API_CALLS } from './document.js';
import { mountCalls } from './calls/mount.js';
import { mountDashboard } from './dashboard/routes/mount.js';

export function createApi(deps: ApiDeps): Koa {
  const app = new Koa({ proxy: false });
  const keys = new KeyCache(deps.pool);

  const router = new Router();
  router.get('/healthz', healthz());
  router.get('/readyz', readyz(deps));
  router.get('/metrics', metricsEndpoint(deps));

  // Every declared call (api/routes/calls.ts and the document's): its guards, buckets and checks, one mount.
  mountCalls(router, API_CALLS, deps, keys);
  mountDashboard(router, deps, keys);

  app.use(requestContext(deps.logger, deps.metrics));
  app.use(errorBody(outageLog(deps.logger, 'PostgreSQL')));
  app.use(async function clientAddress(ctx, next) {
    ctx.state.ip = clientIp(ctx, deps.trustProxyHops);
    await next();
  });
  app.use(clearWords(router));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: false }));
  // Koa would print errors thrown outside the chain to stderr; ours are all handled by errorBody.
  app.silent = true;
  return app;
}
