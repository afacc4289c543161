// GET /api/v1/notifications/{id} (stats), GET /api/v1/notifications (OneSignal's list call) and
// DELETE /api/v1/notifications/{id} (OneSignal's cancel). Tenancy: only the key's app is ever
// read; another app's id, an unknown id and an in-app card are the same 404.
import type { Context } from 'koa';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import { listNotifications, readNotification } from '../../core/send/report.js';
import { parseListFilter } from '../../core/send/list-query.js';
import { cancelSend } from '../../core/send/cancel.js';
import type { ApiDeps } from '../shared/deps.js';
import { drawBuckets } from './notifications.js';

const ID = /^\d{1,15}$/;

/** The send id of the path, checked against the key's app and the optional app_id parameter. */
function sendId(ctx: Context): number {
  const id = String(ctx.params.id);
  const queryApp = ctx.query.app_id;
  if (!ID.test(id)) throw new NotFoundError();
  if (queryApp !== undefined && String(queryApp).toLowerCase() !== ctx.state.auth.appId) throw new NotFoundError();
  return Number(id);
}

export function readNotificationRoute(deps: ApiDeps) {
  return async function readNotificationHandler(ctx: Context): Promise<void> {
    await drawBuckets(deps, ctx, { bucket: 'read' });
    const report = await readNotification(deps.pool, ctx.state.auth.appId, sendId(ctx));
    if (!report) throw new NotFoundError();
    ctx.body = report;
  };
}

export function listNotificationsRoute(deps: ApiDeps) {
  return async function listNotificationsHandler(ctx: Context): Promise<void> {
    await drawBuckets(deps, ctx, { bucket: 'read' });
    const queryApp = ctx.query.app_id;
    // The official client always names its app; naming another app finds nothing of it.
    if (queryApp !== undefined && String(queryApp).toLowerCase() !== ctx.state.auth.appId) throw new NotFoundError('No such app.');
    ctx.body = await listNotifications(deps.pool, ctx.state.auth.appId, parseListFilter(ctx.query));
  };
}

export function cancelNotificationRoute(deps: ApiDeps) {
  return async function cancelNotificationHandler(ctx: Context): Promise<void> {
    await drawBuckets(deps, ctx, { bucket: 'send' });
    const outcome = await cancelSend(deps.pool, ctx.state.auth.appId, sendId(ctx));
    if (outcome.kind === 'not_found') throw new NotFoundError();
    if (outcome.kind === 'finished') {
      throw new ConflictError(`This notification has already finished (${outcome.status}); there is nothing to cancel.`);
    }
    ctx.state.log.info({ sendId: ctx.params.id }, 'send canceled');
    ctx.body = { success: true };
  };
}
