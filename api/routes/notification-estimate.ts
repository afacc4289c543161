// POST /api/v1/notifications/count-unsaved: the official client's estimateNotificationRecipients
// (core/send/estimate.ts). Any key of the app; the body's app_id is checked against the key as a
// send's is (403). A segment, tag or `filters` body is counted as a broadcast is, so it draws the
// `estimate` bucket (core/buckets/policy.ts); a list body (≤ 500 ids) is a cheap read: `read`.
import type { Context } from 'koa';
import { AuthError } from '../../core/errors.js';
import { getApp } from '../../core/apps/app-store.js';
import { estimateSend } from '../../core/send/estimate.js';
import type { ApiDeps } from '../shared/deps.js';
import { classifySend, drawBuckets } from './notifications.js';

export function estimateNotificationRoute(deps: ApiDeps) {
  return async function estimateNotificationHandler(ctx: Context): Promise<void> {
    const body = ctx.request.body as Record<string, unknown>;
    const appId: string = ctx.state.auth.appId;
    if (typeof body.app_id === 'string' && body.app_id.toLowerCase() !== appId) throw new AuthError('wrong_app');
    await drawBuckets(deps, ctx, { bucket: classifySend(body).bucket === 'send' ? 'read' : 'estimate' });
    const app = await getApp(deps.pool, appId);
    if (!app || app.disabled) throw new AuthError('revoked');
    ctx.body = await estimateSend(deps.pool, app, body);
  };
}
