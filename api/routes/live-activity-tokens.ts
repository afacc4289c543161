// The app-facing Live Activity token calls, as OneSignal's iOS SDK makes them
// (OSRequestSetUpdateToken, OSRequestRemoveUpdateToken, OSRequestSetStartToken and its removal):
// an install registers the update token of an activity it shows, removes it when the activity
// ends, and registers a push-to-start token per activity type. Anonymous like the other SDK calls
// (the app id is public): the SDK bucket per IP, bounded input, identity verification when the
// install has an external id, and only an install of this app.
import type { Context } from 'koa';
import { Ajv } from 'ajv';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { setLiveActivityToken, type LiveActivityTokenKind } from '../../core/live-activities/tokens.js';
import { removeTokenForApp } from '../../core/live-activities/token-events.js';
import { inTransaction } from '../../core/store/db.js';
import { ACTIVITY_ID, ACTIVITY_ID_RULE, ACTIVITY_TYPE, ACTIVITY_TYPE_RULE } from '../../core/live-activities/names.js';
import type { ApiDeps } from '../shared/deps.js';
import { checkApnsInstall } from '../../core/subscriptions/subscription-store.js';
import { appOf, drawSdk } from './subscriptions.js';
import { checkIdentity } from './identity.js';
import { DEVICE_TOKEN_SCHEMA, deviceTokenRule } from '../../core/formats/device-token.js';
import { isUuid, UUID_PATTERN } from '../../core/formats/uuid.js';
import { EXTERNAL_ID_AUTH_HASH_SCHEMA } from '../../core/formats/identity-hash.js';

const TOKEN = DEVICE_TOKEN_SCHEMA;
const DEVICE_TYPE = { enum: [0] }; // iOS, the only platform Herald serves

const ajv = new Ajv({ allErrors: false });
const checkUpdate = ajv.compile({
  type: 'object',
  properties: { subscription_id: { type: 'string', pattern: UUID_PATTERN }, push_token: TOKEN, device_type: DEVICE_TYPE, external_id_auth_hash: EXTERNAL_ID_AUTH_HASH_SCHEMA },
  required: ['subscription_id', 'push_token'],
});
const checkStart = ajv.compile({
  type: 'object',
  properties: { activity_token: TOKEN, device_type: DEVICE_TYPE, external_id_auth_hash: EXTERNAL_ID_AUTH_HASH_SCHEMA },
  required: ['activity_token'],
});

function refuse(errors: typeof checkUpdate.errors): never {
  const e = errors?.[0];
  const field = e?.instancePath.replace(/^\//, '') || (e?.params as { missingProperty?: string } | undefined)?.missingProperty || 'body';
  if (e?.keyword === 'required') throw new ValidationError(`${field} is required.`);
  if (field === 'push_token' || field === 'activity_token') throw new ValidationError(`${deviceTokenRule(field, "the Live Activity's APNs token")}.`);
  if (field === 'subscription_id') throw new ValidationError('subscription_id must be the install\'s Subscription ID (a UUID).');
  if (field === 'device_type') throw new ValidationError('device_type must be 0 (iOS).');
  throw new ValidationError(`${field} ${e?.message ?? 'is not valid'}.`);
}

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

async function set(deps: ApiDeps, ctx: Context, kind: LiveActivityTokenKind, subscriptionId: string, token: string): Promise<void> {
  const activity = activityOf(ctx, kind);
  const app = await appOf(deps, ctx);
  // The install's own external id, never one the body names: these calls set no external id, so
  // a body's external_id (with its owner's valid hash) must not stand in for the install's.
  const body = ctx.request.body as Record<string, unknown>;
  await checkIdentity(deps.pool, app.id, { external_id_auth_hash: body.external_id_auth_hash }, { id: subscriptionId });
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

/** POST /apps/{app_id}/live_activities/{activity_id}/token {subscription_id, push_token, device_type} */
export function setUpdateToken(deps: ApiDeps) {
  return async function setUpdateTokenHandler(ctx: Context): Promise<void> {
    await drawSdk(deps, ctx);
    const body = ctx.request.body as Record<string, unknown>;
    if (!checkUpdate(body)) refuse(checkUpdate.errors);
    await set(deps, ctx, 'update', subscriptionOf(body.subscription_id), String(body.push_token));
  };
}

/** DELETE /apps/{app_id}/live_activities/{activity_id}/token/{subscription_id} */
export function removeUpdateToken(deps: ApiDeps) {
  return async function removeUpdateTokenHandler(ctx: Context): Promise<void> {
    await drawSdk(deps, ctx);
    await remove(deps, ctx, 'update', subscriptionOf(ctx.params.subscription_id));
  };
}

/** PUT /apps/{app_id}/activities/tokens/start/{activity_type}/subscriptions/{subscription_id} {activity_token, device_type} */
export function setStartToken(deps: ApiDeps) {
  return async function setStartTokenHandler(ctx: Context): Promise<void> {
    await drawSdk(deps, ctx);
    const body = ctx.request.body as Record<string, unknown>;
    if (!checkStart(body)) refuse(checkStart.errors);
    await set(deps, ctx, 'start', subscriptionOf(ctx.params.subscription_id), String(body.activity_token));
  };
}

/** DELETE /apps/{app_id}/activities/tokens/start/{activity_type}/subscriptions/{subscription_id} */
export function removeStartToken(deps: ApiDeps) {
  return async function removeStartTokenHandler(ctx: Context): Promise<void> {
    await drawSdk(deps, ctx);
    await remove(deps, ctx, 'start', subscriptionOf(ctx.params.subscription_id));
  };
}
