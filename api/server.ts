// The Koa application of the HTTP front. Middleware chains per route follow DECISIONS "Limits":
// key (401/403, drawing only `anonymous`) → body (400/413/415) → route checks and buckets.
import Koa from 'koa';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { ApiDeps } from './shared/deps.js';
import { KeyCache } from './shared/key-cache.js';
import { clientIp } from './shared/client-ip.js';
import { requestContext } from './middleware/request-context.js';
import { errorBody } from './middleware/errors.js';
import { outageLog } from '../core/faults/outage-log.js';
import { authenticate, requireSendScope } from './middleware/authenticate.js';
import { limitAnonymous } from './middleware/limit-anonymous.js';
import { healthz, metricsEndpoint, readyz } from './routes/health.js';
import { createAliasRoute, createUserRoute, deleteAliasRoute, deleteSubscriptionRoute, deleteUserRoute, getAliasesRoute, getUserRoute, updateUserRoute } from './routes/users.js';
import { createUserSubscriptionRoute, transferSubscriptionRoute, updateSubscriptionByTokenRoute } from './routes/user-subscriptions.js';
import { jsonBody } from './middleware/json-body.js';
import { clearWords } from './middleware/clear-words.js';
import { REST_CALLS } from './calls/index.js';
import { mountCalls } from './calls/mount.js';
import { mountDashboard } from './dashboard/routes/mount.js';

export function createApi(deps: ApiDeps): Koa {
  const app = new Koa({ proxy: false });
  const keys = new KeyCache(deps.pool);
  const authenticated: Middleware[] = [limitAnonymous(deps.rateLimiter), authenticate(keys)];

  const router = new Router();
  router.get('/healthz', healthz());
  router.get('/readyz', readyz(deps));
  router.get('/metrics', metricsEndpoint(deps));

  const sending = [...authenticated, requireSendScope()];

  const user = '/api/v1/apps/:app_id/users/by/:alias_label/:alias_id';
  router.post('/api/v1/apps/:app_id/users', ...sending, jsonBody(), createUserRoute(deps));
  router.get(user, ...authenticated, getUserRoute(deps));
  router.patch(user, ...sending, jsonBody(), updateUserRoute(deps));
  router.delete(user, ...sending, deleteUserRoute(deps));
  router.get(`${user}/identity`, ...authenticated, getAliasesRoute(deps, 'user'));
  router.patch(`${user}/identity`, ...sending, jsonBody(), createAliasRoute(deps, 'user'));
  router.delete(`${user}/identity/:alias_label_to_delete`, ...sending, deleteAliasRoute(deps));
  router.post(`${user}/subscriptions`, ...sending, jsonBody(), createUserSubscriptionRoute(deps));
  router.patch('/api/v1/apps/:app_id/subscriptions/:subscription_id/owner', ...sending, jsonBody(), transferSubscriptionRoute(deps));
  router.patch('/api/v1/apps/:app_id/subscriptions_by_token/:token_type/:token', ...sending, jsonBody(), updateSubscriptionByTokenRoute(deps));
  router.get('/api/v1/apps/:app_id/subscriptions/:subscription_id/user/identity', ...authenticated, getAliasesRoute(deps, 'subscription'));
  router.patch('/api/v1/apps/:app_id/subscriptions/:subscription_id/user/identity', ...sending, jsonBody(), createAliasRoute(deps, 'subscription'));


  router.delete('/api/v1/apps/:app_id/subscriptions/:id', ...sending, deleteSubscriptionRoute(deps));
  // Every declared call (api/calls/index.ts): its guards, buckets and checks, one mount.
  mountCalls(router, REST_CALLS, deps, keys);
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
