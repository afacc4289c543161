// The app-facing Live Activity token calls, as OneSignal's iOS SDK makes them
// (OSRequestSetUpdateToken, OSRequestRemoveUpdateToken, OSRequestSetStartToken and its removal):
// an install registers the update token of an activity it shows, removes it when the activity
// ends, and registers a push-to-start token per activity type. Anonymous like the other SDK calls
// (the app id is public): the SDK bucket per IP (the mount's), bounded input (the one checker),
// identity verification when the install has an external id, and only an install of this app.
import type { Context } from 'koa';
import Type from 'typebox';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { setLiveActivityToken, type LiveActivityTokenKind } from '../../core/live-activities/tokens.js';
import { removeTokenForApp } from '../../core/live-activities/token-events.js';
import { inTransaction } from '../../core/store/db.js';
import { ACTIVITY_ID, ACTIVITY_ID_RULE, ACTIVITY_TYPE, ACTIVITY_TYPE_RULE } from '../../core/live-activities/names.js';
import { checkApnsInstall } from '../../core/subscriptions/subscription-store.js';
import { DEVICE_TOKEN_SCHEMA, deviceTokenRule } from '../../core/formats/device-token.js';
import { isUuid } from '../../core/formats/uuid.js';
import { EXTERNAL_ID_AUTH_HASH_SCHEMA } from '../../core/formats/identity-hash.js';
import type { ApiDeps } from '../shared/deps.js';
import { declare } from '../calls/call.js';
import { IDENTITY, SDK, json, r, ref } from '../openapi/answers.js';
import { appOf } from './subscriptions.js';
import { checkIdentity } from './identity.js';

const token = (description: string) => Type.Unsafe<string>({ ...DEVICE_TOKEN_SCHEMA, description });
// iOS, the only platform a Live Activity has.
const DEVICE_TYPE = Type.Optional(Type.Unsafe<0>({ enum: [0], description: '0: iOS.' }));
const AUTH_HASH = Type.Optional(Type.Unsafe<string>(EXTERNAL_ID_AUTH_HASH_SCHEMA));

/** The set-update body; the OpenAPI document shows this same schema (LiveActivityUpdateToken). */
export const UPDATE_TOKEN_BODY = Type.Object({
  subscription_id: Type.String({ format: 'uuid' }),
  push_token: token("The activity's APNs update token (Activity.pushTokenUpdates), hex."),
  device_type: DEVICE_TYPE,
  external_id_auth_hash: AUTH_HASH,
});

/** The set-start body (LiveActivityStartToken in the document). */
export const START_TOKEN_BODY = Type.Object({
  activity_token: token('The push-to-start token (Activity.pushToStartTokenUpdates), hex.'),
  device_type: DEVICE_TYPE,
  external_id_auth_hash: AUTH_HASH,
});

const TOKEN_RULE = (field: string) => `${deviceTokenRule(field, "the Live Activity's APNs token")}.`;
const DEVICE_TYPE_RULE = 'device_type must be 0 (iOS).';
const UPDATE_SENTENCES = {
  'subscription_id:required': 'subscription_id is required.',
  subscription_id: "subscription_id must be the install's Subscription ID (a UUID).",
  'push_token:required': 'push_token is required.',
  push_token: TOKEN_RULE('push_token'),
  device_type: DEVICE_TYPE_RULE,
};
const START_SENTENCES = { 'activity_token:required': 'activity_token is required.', activity_token: TOKEN_RULE('activity_token'), device_type: DEVICE_TYPE_RULE };

function activityOf(ctx: Context, kind: LiveActivityTokenKind): string {
  const value = String(kind === 'update' ? ctx.params.activity_id : ctx.params.activity_type);
  if (kind === 'update' && !ACTIVITY_ID.test(value)) throw new ValidationError(ACTIVITY_ID_RULE);
  if (kind === 'start' && !ACTIVITY_TYPE.test(value)) throw new ValidationError(ACTIVITY_TYPE_RULE);
  return value;
}

function subscriptionOf(value: unknown): string {
  const id = String(value);
  if (!isUuid(id)) throw new NotFoundError('No such subscription.');
  return id.toLowerCase();
}

interface TokenSet {
  kind: LiveActivityTokenKind;
  subscriptionId: string;
  token: string;
  authHash: string | undefined;
}

async function set(deps: ApiDeps, ctx: Context, { kind, subscriptionId, token, authHash }: TokenSet): Promise<void> {
  const activity = activityOf(ctx, kind);
  const app = await appOf(deps, ctx);
  // The install's own external id, never one the body names: these calls set no external id, so
  // a body's external_id (with its owner's valid hash) must not stand in for the install's.
  await checkIdentity(deps.pool, app.id, { external_id_auth_hash: authHash }, { id: subscriptionId });
  await checkApnsInstall(deps.pool, app.id, subscriptionId, kind === 'update' ? 'Live Activity tokens' : 'Push-to-start tokens');
  if (!(await setLiveActivityToken(deps.pool, { appId: app.id, kind, activity, subscriptionId, token: token.toLowerCase() }))) throw new NotFoundError('No such subscription.');
  ctx.body = { success: true };
}

async function remove(deps: ApiDeps, ctx: Context, kind: LiveActivityTokenKind, subscriptionId: string): Promise<void> {
  const activity = activityOf(ctx, kind);
  const app = await appOf(deps, ctx);
  // The removal and its event (the activity ended on the device, or push-to-start no longer wanted) in one transaction.
  const removed = await inTransaction(deps.pool, (db) => removeTokenForApp(db, { appId: app.id, kind, activity, subscriptionId }));
  if (!removed) throw new NotFoundError('No such Live Activity token.');
  ctx.body = { success: true };
}

export const setUpdateTokenCall = declare({
  operationId: 'setLiveActivityUpdateToken',
  method: 'post',
  path: '/apps/{app_id}/live_activities/{activity_id}/token',
  access: 'app',
  body: UPDATE_TOKEN_BODY,
  sentences: UPDATE_SENTENCES,
  answers: { '200': { description: "Set (replaces the install's earlier token for the activity).", schema: 'Success' } },
  doc: {
    tags: ['sdk'],
    summary: "An install's update token for a Live Activity it shows (OneSignal's SDK: OSRequestSetUpdateToken).",
    requestBody: { required: true, content: json(ref('LiveActivityUpdateToken')) },
    responses: { '403': IDENTITY, '404': r('NotFound'), ...SDK },
  },
  handler: (deps) =>
    async function setUpdateTokenHandler(ctx, { body }): Promise<void> {
      await set(deps, ctx, { kind: 'update', subscriptionId: subscriptionOf(body.subscription_id), token: body.push_token, authHash: body.external_id_auth_hash });
    },
});

export const removeUpdateTokenCall = declare({
  operationId: 'removeLiveActivityUpdateToken',
  method: 'delete',
  path: '/apps/{app_id}/live_activities/{activity_id}/token/{subscription_id}',
  access: 'app',
  answers: { '200': { description: 'Removed.', schema: 'Success' } },
  doc: {
    tags: ['sdk'],
    summary: 'The activity ended on the device: its update token goes (OSRequestRemoveUpdateToken).',
    responses: { '404': r('NotFound'), ...SDK },
  },
  handler: (deps) =>
    async function removeUpdateTokenHandler(ctx): Promise<void> {
      await remove(deps, ctx, 'update', subscriptionOf(ctx.params.subscription_id));
    },
});

const START_PATH = '/apps/{app_id}/activities/tokens/start/{activity_type}/subscriptions/{subscription_id}';

export const setStartTokenCall = declare({
  operationId: 'setLiveActivityStartToken',
  method: 'put',
  path: START_PATH,
  access: 'app',
  body: START_TOKEN_BODY,
  sentences: START_SENTENCES,
  answers: { '200': { description: 'Set.', schema: 'Success' } },
  doc: {
    tags: ['sdk'],
    summary: "An install's push-to-start token for an activity type (OSRequestSetStartToken).",
    requestBody: { required: true, content: json(ref('LiveActivityStartToken')) },
    responses: { '403': IDENTITY, '404': r('NotFound'), ...SDK },
  },
  handler: (deps) =>
    async function setStartTokenHandler(ctx, { body }): Promise<void> {
      await set(deps, ctx, { kind: 'start', subscriptionId: subscriptionOf(ctx.params.subscription_id), token: body.activity_token, authHash: body.external_id_auth_hash });
    },
});

export const removeStartTokenCall = declare({
  operationId: 'removeLiveActivityStartToken',
  method: 'delete',
  path: START_PATH,
  access: 'app',
  answers: { '200': { description: 'Removed.', schema: 'Success' } },
  doc: {
    tags: ['sdk'],
    summary: 'The push-to-start token of an activity type goes.',
    responses: { '404': r('NotFound'), ...SDK },
  },
  handler: (deps) =>
    async function removeStartTokenHandler(ctx): Promise<void> {
      await remove(deps, ctx, 'start', subscriptionOf(ctx.params.subscription_id));
    },
});
