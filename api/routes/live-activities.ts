// The official client's startLiveActivity and updateLiveActivity, on the send's accept path
// (routeAccept → core/send/accept.ts): the key's app, its buckets, idempotency keys, a send row of
// kind live_activity, delivered by the same planner, chunks and transport (docs/live-activities.md).
// Answers are the client's StartLiveActivitySuccessResponse (201 {notification_id}) and
// UpdateLiveActivitySuccessResponse (200 {id}); the id reads as any send's
// (GET /api/v1/notifications/{id}).
//
// An App with spec.liveActivities.broadcast (issue 29) also has a broadcast channel per activity:
// a start names it in the push-to-start, and an update or end goes once to it besides the send
// to the registered tokens (api/live-activities/broadcast.ts).
import type { Context } from 'koa';
import type { AppRecord } from '../../core/apps/app-store.js';
import type { SendRequest } from '../../core/send-model/request.js';
import { validateLiveActivityRequest } from '../../core/validation/validate-live-activity.js';
import type { ApiDeps } from '../shared/deps.js';
import type { PreparedBroadcast } from '../live-activities/broadcast.js';
import { declare } from '../calls/call.js';
import { componentBody, type JsonObject } from '../calls/unchecked-body.js';
import { ACCEPT_REFUSALS, IDEMPOTENCY_KEY_PARAM, classifySend, routeAccept } from './notifications.js';

/** POST /api/v1/apps/{app_id}/activities/activity/{activity_type}: push-to-start to an audience named as in sends. */
export const startLiveActivityCall = declare({
  operationId: 'startLiveActivity',
  method: 'post',
  path: '/apps/{app_id}/activities/activity/{activity_type}',
  access: 'send-key',
  app: 'path',
  bucket: (_ctx, body) => classifySend(body), // a segment or filters start is a broadcast, a list a send
  body: componentBody('StartLiveActivityRequest'),
  bodyUnchecked: true, // the send's rules, in acceptSend's order
  answers: { '201': { description: 'Accepted: a send of kind live_activity (read it with GET /notifications/{id}).', schema: 'StartLiveActivityResponse' } },
  doc: {
    tags: ['live activities'],
    summary: 'Start a Live Activity by push (push-to-start) on the installs of an audience named as in sends that hold a push-to-start token of the type (needs a key of scope send).',
    parameters: [IDEMPOTENCY_KEY_PARAM],
    responses: ACCEPT_REFUSALS,
  },
  handler: (deps) => startLiveActivity(deps),
});

/** POST /api/v1/apps/{app_id}/live_activities/{activity_id}/notifications: update or end, to the activity's tokens. */
export const updateLiveActivityCall = declare({
  operationId: 'updateLiveActivity',
  method: 'post',
  path: '/apps/{app_id}/live_activities/{activity_id}/notifications',
  access: 'send-key',
  app: 'path',
  bucket: 'send', // one activity's tokens, like a list
  body: componentBody('UpdateLiveActivityRequest'),
  bodyUnchecked: true,
  answers: {
    '200': { description: 'Accepted: a send of kind live_activity (read it with GET /notifications/{id}); an end drops the tokens once delivered.', schema: 'UpdateLiveActivityResponse' },
  },
  doc: {
    tags: ['live activities'],
    summary: "Update or end a Live Activity: a push to every update token the app's installs registered for the activity (needs a key of scope send).",
    parameters: [IDEMPOTENCY_KEY_PARAM],
    responses: ACCEPT_REFUSALS,
  },
  handler: (deps) => updateLiveActivity(deps),
});

function startLiveActivity(deps: ApiDeps) {
  const accept = routeAccept(deps);
  return async function startLiveActivityHandler(ctx: Context, { body }: { body: JsonObject }): Promise<void> {
    const activityType = String(ctx.params.activity_type);
    const created = await accept(ctx, {
      body,
      validate: (v) => validateLiveActivityRequest({ ...v, call: { event: 'start', activityType } }),
      // After the rules, the buckets and the halt check: a refused start makes no channel at Apple.
      prepare: (request, app) => withChannel(deps, request, app),
      fingerprint: { activity_type: activityType, body },
    });
    ctx.status = 201;
    ctx.body = { notification_id: String(created.body.id) };
  };
}

function updateLiveActivity(deps: ApiDeps) {
  const accept = routeAccept(deps);
  return async function updateLiveActivityHandler(ctx: Context, { body }: { body: JsonObject }): Promise<void> {
    const activityId = String(ctx.params.activity_id);
    // The fast lane (docs/live-activities.md "Speed"): the channel is looked up beside the count
    // of the tokens, and the broadcast leaves once the update is sure to be accepted, while its
    // send is recorded; its outcome is written on the send once that is committed. The answer
    // waits for Apple's. A replayed answer sends nothing (no broadcast).
    const broadcaster = deps.liveActivityBroadcast;
    let prepared: { app: AppRecord; request: SendRequest; lookup: PreparedBroadcast } | undefined;
    let sent: Promise<void> | undefined;
    let recorded: (sendId: number | undefined) => void = () => undefined;
    const sendId = new Promise<number | undefined>((resolve) => (recorded = resolve));
    let created;
    try {
      created = await accept(ctx, {
        body,
        validate: (v) => validateLiveActivityRequest({ ...v, call: { event: 'update', activityId } }),
        prepare: async (request, app) => {
          const lookup = broadcaster?.prepare(app, request);
          if (lookup) prepared = { app, request, lookup };
        },
        onAccepted: () => {
          if (prepared) sent = broadcaster!.broadcast(prepared.app, prepared.request, prepared.lookup, sendId);
        },
        onRecorded: recorded,
        fingerprint: { activity_id: activityId, body },
      });
    } finally {
      recorded(undefined); // the record failed (or was never made): no outcome to write
    }
    // It never throws: the update is accepted, a failure there is per-token delivery only.
    await sent;
    ctx.status = 200;
    ctx.body = { id: String(created.body.id) };
  };
}

/** A start's broadcast channel, for an App that uses them (named in its push-to-start). */
async function withChannel(deps: ApiDeps, request: SendRequest, app: AppRecord): Promise<void> {
  const la = request.liveActivity;
  if (!deps.liveActivityBroadcast || !la) return;
  const channelId = await deps.liveActivityBroadcast.channelFor(app, la.activityId);
  if (channelId !== undefined) la.channelId = channelId;
}
