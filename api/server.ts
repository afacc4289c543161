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
import { jsonBody } from './middleware/json-body.js';
import { createSubscription, reportOpen, updateSubscription } from './routes/subscriptions.js';
import { readSubscriptionRoute } from './routes/subscription-read.js';
import { removeStartToken, removeUpdateToken, setStartToken, setUpdateToken } from './routes/live-activity-tokens.js';
import { readActivityChannel } from './routes/live-activity-channel.js';
import { removePushTypeTokenRoute, setPushTypeTokenRoute } from './routes/push-type-tokens.js';
import { healthz, metricsEndpoint, readyz } from './routes/health.js';
import { createAliasRoute, createUserRoute, deleteAliasRoute, deleteSubscriptionRoute, deleteUserRoute, getAliasesRoute, getUserRoute, updateUserRoute } from './routes/users.js';
import { createUserSubscriptionRoute, transferSubscriptionRoute, updateSubscriptionByTokenRoute } from './routes/user-subscriptions.js';
import { addPlayerRoute, deletePlayerRoute, editPlayerRoute, viewPlayerRoute, viewPlayersRoute } from './routes/players.js';
import { externalUserTagsRoute, playerReportRoute } from './routes/player-sessions.js';
import { optionalKey } from './middleware/optional-key.js';
import { iosParamsRoute } from './routes/ios-params.js';
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

  // OneSignal's v1 device calls (issue 38): with a REST key, or app-facing with the App ID alone.
  const keyOrApp = optionalKey(authenticated);
  router.post('/api/v1/players', keyOrApp, jsonBody(), addPlayerRoute(deps));
  router.get('/api/v1/players', ...authenticated, viewPlayersRoute(deps));
  router.get('/api/v1/players/:id', ...authenticated, viewPlayerRoute(deps));
  router.put('/api/v1/players/:id', keyOrApp, jsonBody(), editPlayerRoute(deps, 0));
  router.delete('/api/v1/players/:id', ...sending, deletePlayerRoute(deps));
  router.post('/api/v1/players/:id/on_session', keyOrApp, jsonBody(), editPlayerRoute(deps, 1));
  router.post('/api/v1/players/:id/on_purchase', keyOrApp, jsonBody(), playerReportRoute(deps, 'on_purchase'));
  router.post('/api/v1/players/:id/on_focus', keyOrApp, jsonBody(), playerReportRoute(deps, 'on_focus'));
  router.put('/api/v1/apps/:app_id/users/:external_user_id', ...sending, jsonBody(), externalUserTagsRoute(deps));
  router.get('/api/v1/apps/:app_id/ios_params.js', iosParamsRoute(deps));

  router.post('/api/v1/apps/:app_id/subscriptions', jsonBody(), createSubscription(deps));
  router.patch('/api/v1/apps/:app_id/subscriptions/:id', jsonBody(), updateSubscription(deps));
  router.get('/api/v1/apps/:app_id/subscriptions/:id', ...authenticated, readSubscriptionRoute(deps));
  router.delete('/api/v1/apps/:app_id/subscriptions/:id', ...sending, deleteSubscriptionRoute(deps));
  router.post('/api/v1/notifications/:id/opened', jsonBody(), reportOpen(deps));
  router.post('/api/v1/apps/:app_id/live_activities/:activity_id/token', jsonBody(), setUpdateToken(deps));
  router.delete('/api/v1/apps/:app_id/live_activities/:activity_id/token/:subscription_id', removeUpdateToken(deps));
  router.get('/api/v1/apps/:app_id/live_activities/:activity_id/channel', readActivityChannel(deps));
  router.put('/api/v1/apps/:app_id/activities/tokens/start/:activity_type/subscriptions/:subscription_id', jsonBody(), setStartToken(deps));
  router.delete('/api/v1/apps/:app_id/activities/tokens/start/:activity_type/subscriptions/:subscription_id', removeStartToken(deps));
  router.put('/api/v1/apps/:app_id/subscriptions/:subscription_id/push_tokens/:push_type', jsonBody(), setPushTypeTokenRoute(deps));
  router.delete('/api/v1/apps/:app_id/subscriptions/:subscription_id/push_tokens/:push_type', removePushTypeTokenRoute(deps));
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
