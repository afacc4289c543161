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
import { jsonBody, optionalJsonBody } from './middleware/json-body.js';
import { createNotification } from './routes/notifications.js';
import { estimateNotificationRoute } from './routes/notification-estimate.js';
import { cancelNotificationRoute, listNotificationsRoute, readNotificationRoute } from './routes/notification-reports.js';
import { createSubscription, reportOpen, updateSubscription } from './routes/subscriptions.js';
import { readSubscriptionRoute } from './routes/subscription-read.js';
import { removeStartToken, removeUpdateToken, setStartToken, setUpdateToken } from './routes/live-activity-tokens.js';
import { readActivityChannel } from './routes/live-activity-channel.js';
import { removePushTypeTokenRoute, setPushTypeTokenRoute } from './routes/push-type-tokens.js';
import { startLiveActivity, updateLiveActivity } from './routes/live-activities.js';
import { healthz, metricsEndpoint, readyz } from './routes/health.js';
import { downloadExportRoute, exportSubscriptionsRoute } from './routes/exports.js';
import { createSegmentRoute, deleteSegmentRoute, getSegmentRoute, getSegmentsRoute, updateSegmentRoute } from './routes/segments.js';
import { copyTemplateToAppRoute, createTemplateRoute, deleteTemplateRoute, updateTemplateRoute, viewTemplateRoute, viewTemplatesRoute } from './routes/templates.js';
import { exportEventsRoute, notificationHistoryRoute } from './routes/notification-history.js';
import { outcomesRoute } from './routes/outcomes.js';
import { addPlayerRoute, deletePlayerRoute, editPlayerRoute, viewPlayerRoute, viewPlayersRoute } from './routes/players.js';
import { externalUserTagsRoute, playerReportRoute } from './routes/player-sessions.js';
import { optionalKey } from './middleware/optional-key.js';
import { iosParamsRoute } from './routes/ios-params.js';
import { clearWords } from './middleware/clear-words.js';
import { REST_CALLS } from './calls/index.js';
import { mountCalls } from './calls/mount.js';
import { mountDashboard } from './dashboard/routes/mount.js';
import { openApiDocument } from './openapi/document.js';

export function createApi(deps: ApiDeps): Koa {
  const app = new Koa({ proxy: false });
  const keys = new KeyCache(deps.pool);
  const authenticated: Middleware[] = [limitAnonymous(deps.rateLimiter), authenticate(keys)];

  const router = new Router();
  router.get('/healthz', healthz());
  router.get('/readyz', readyz(deps));
  router.get('/metrics', metricsEndpoint(deps));

  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = openApiDocument;
  });
  const sending = [...authenticated, requireSendScope()];
  router.post('/api/v1/notifications', ...sending, jsonBody(), createNotification(deps));
  router.get('/api/v1/notifications', ...authenticated, listNotificationsRoute(deps));
  // Before /notifications/:id: that path would otherwise match count-unsaved and answer 405.
  router.post('/api/v1/notifications/count-unsaved', ...authenticated, jsonBody(), estimateNotificationRoute(deps));
  router.get('/api/v1/notifications/:id', ...authenticated, readNotificationRoute(deps));
  router.delete('/api/v1/notifications/:id', ...sending, cancelNotificationRoute(deps));
  router.post('/api/v1/notifications/:id/history', ...sending, jsonBody(), notificationHistoryRoute(deps));
  router.post('/api/v1/notifications/:id/export_events', ...sending, exportEventsRoute(deps));
  router.get('/api/v1/apps/:app_id/outcomes', ...authenticated, outcomesRoute(deps));
  router.post('/api/v1/apps/:app_id/activities/activity/:activity_type', ...sending, jsonBody(), startLiveActivity(deps));
  router.post('/api/v1/apps/:app_id/live_activities/:activity_id/notifications', ...sending, jsonBody(), updateLiveActivity(deps));

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
  router.post('/api/v1/players/csv_export', ...sending, optionalJsonBody(), exportSubscriptionsRoute(deps));
  router.get('/api/v1/exports/:file', downloadExportRoute(deps));

  const segment = '/api/v1/apps/:app_id/segments/:segment_id';
  router.post('/api/v1/apps/:app_id/segments', ...sending, jsonBody(), createSegmentRoute(deps));
  router.get('/api/v1/apps/:app_id/segments', ...authenticated, getSegmentsRoute(deps));
  router.get(segment, ...authenticated, getSegmentRoute(deps));
  router.patch(segment, ...sending, jsonBody(), updateSegmentRoute(deps));
  router.delete(segment, ...sending, deleteSegmentRoute(deps));

  const template = '/api/v1/templates/:template_id';
  router.post('/api/v1/templates', ...sending, jsonBody(), createTemplateRoute(deps));
  router.get('/api/v1/templates', ...authenticated, viewTemplatesRoute(deps));
  router.get(template, ...authenticated, viewTemplateRoute(deps));
  router.patch(template, ...sending, jsonBody(), updateTemplateRoute(deps));
  router.delete(template, ...sending, deleteTemplateRoute(deps));
  // The client sends an organisation key here, which Herald has none of: refused before any key check.
  router.post(`${template}/copy_to_app`, limitAnonymous(deps.rateLimiter), copyTemplateToAppRoute());

  router.post('/api/v1/apps/:app_id/subscriptions', jsonBody(), createSubscription(deps));
  router.patch('/api/v1/apps/:app_id/subscriptions/:id', jsonBody(), updateSubscription(deps));
  router.get('/api/v1/apps/:app_id/subscriptions/:id', ...authenticated, readSubscriptionRoute(deps));
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
