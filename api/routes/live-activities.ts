// The official client's startLiveActivity and updateLiveActivity, on the send's accept path
// (routeAccept → core/send/accept.ts): the key's app, its buckets, idempotency keys, a send row of
// kind live_activity, delivered by the same planner, chunks and transport (docs/live-activities.md).
// Answers are the client's StartLiveActivitySuccessResponse (201 {notification_id}) and
// UpdateLiveActivitySuccessResponse (200 {id}); the id reads as any send's
// (GET /api/v1/notifications/{id}).
import type { Context } from 'koa';
import { validateLiveActivityRequest } from '../../core/validation/validate-live-activity.js';
import type { ApiDeps } from '../shared/deps.js';
import { classifySend, routeAccept } from './notifications.js';

/** POST /api/v1/apps/{app_id}/activities/activity/{activity_type}: push-to-start to an audience named as in sends. */
export function startLiveActivity(deps: ApiDeps) {
  const accept = routeAccept(deps);
  return async function startLiveActivityHandler(ctx: Context): Promise<void> {
    const body = ctx.request.body as Record<string, unknown>;
    const activityType = String(ctx.params.activity_type);
    const created = await accept(ctx, {
      namedAppId: ctx.params.app_id,
      draw: classifySend(body), // a segment or filters start is a broadcast, a list a send
      body,
      validate: (v) => validateLiveActivityRequest({ ...v, call: { event: 'start', activityType } }),
      fingerprint: { activity_type: activityType, body },
    });
    ctx.status = 201;
    ctx.body = { notification_id: String(created.body.id) };
  };
}

/** POST /api/v1/apps/{app_id}/live_activities/{activity_id}/notifications: update or end, to the activity's tokens. */
export function updateLiveActivity(deps: ApiDeps) {
  const accept = routeAccept(deps);
  return async function updateLiveActivityHandler(ctx: Context): Promise<void> {
    const body = ctx.request.body as Record<string, unknown>;
    const activityId = String(ctx.params.activity_id);
    const created = await accept(ctx, {
      namedAppId: ctx.params.app_id,
      draw: { bucket: 'send' }, // one activity's tokens, like a list
      body,
      validate: (v) => validateLiveActivityRequest({ ...v, call: { event: 'update', activityId } }),
      fingerprint: { activity_id: activityId, body },
    });
    ctx.status = 200;
    ctx.body = { id: String(created.body.id) };
  };
}
