// The app-facing calls for an install's other push tokens (issue 29; docs/api.md "Push types"):
// a PushKit VoIP or complication token, a location push token, a push-to-talk token, a WidgetKit
// widgets or controls token, each handed out by Apple apart from the alert token. Shaped as the
// Live Activity push-to-start calls (live-activity-tokens.ts): anonymous (the app id is public),
// the SDK bucket per IP, bounded input, the one token rule (core/formats/device-token.ts),
// identity verification when the install has an external id, and only an install of this app.
import type { Context } from 'koa';
import { Ajv } from 'ajv';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { isOwnTokenPushType, OWN_TOKEN_PUSH_TYPES, type OwnTokenPushType } from '../../core/payload/push-types.js';
import { removePushTypeToken, setPushTypeToken } from '../../core/subscriptions/push-type-tokens.js';
import { DEVICE_TOKEN_SCHEMA, deviceTokenRule } from '../../core/formats/device-token.js';
import { isUuid } from '../../core/formats/uuid.js';
import { EXTERNAL_ID_AUTH_HASH_SCHEMA } from '../../core/formats/identity-hash.js';
import { checkApnsInstall } from '../../core/subscriptions/subscription-store.js';
import type { ApiDeps } from '../shared/deps.js';
import { appOf, drawSdk } from './subscriptions.js';
import { checkIdentity } from './identity.js';

/** The body of the set call; the OpenAPI document shows this same schema (api/openapi/schemas.ts). */
export const PUSH_TYPE_TOKEN_BODY = {
  type: 'object',
  required: ['push_token'],
  properties: {
    push_token: { ...DEVICE_TOKEN_SCHEMA, description: "The install's token of that push type (PushKit, CLLocationManager, PTChannelManager or WidgetKit), hex." },
    device_type: { enum: [0], description: '0: iOS.' },
    external_id_auth_hash: EXTERNAL_ID_AUTH_HASH_SCHEMA,
  },
} as const;

const checkBody = new Ajv({ allErrors: false }).compile(PUSH_TYPE_TOKEN_BODY);

export const PUSH_TYPE_RULE = `push_type is one of ${OWN_TOKEN_PUSH_TYPES.join(', ')}: the push types with a token of their own.`;

function refuse(errors: typeof checkBody.errors): never {
  const e = errors?.[0];
  const field = e?.instancePath.replace(/^\//, '') || (e?.params as { missingProperty?: string } | undefined)?.missingProperty || 'body';
  if (e?.keyword === 'required') throw new ValidationError(`${field} is required.`);
  if (field === 'push_token') throw new ValidationError(`${deviceTokenRule(field, "the install's token of that push type")}.`);
  if (field === 'device_type') throw new ValidationError('device_type must be 0 (iOS).');
  throw new ValidationError(`${field} ${e?.message ?? 'is not valid'}.`);
}

/** The path's install and push type; the type is checked first, so an unknown one is a 422 naming it. */
function keyOf(ctx: Context): { subscriptionId: string; pushType: OwnTokenPushType } {
  const pushType = String(ctx.params.push_type);
  if (!isOwnTokenPushType(pushType)) throw new ValidationError(PUSH_TYPE_RULE);
  const id = String(ctx.params.subscription_id);
  if (!isUuid(id)) throw new NotFoundError('No such subscription.');
  return { subscriptionId: id.toLowerCase(), pushType };
}

/** PUT /apps/{app_id}/subscriptions/{subscription_id}/push_tokens/{push_type} {push_token, device_type} */
export function setPushTypeTokenRoute(deps: ApiDeps) {
  return async function setPushTypeTokenHandler(ctx: Context): Promise<void> {
    await drawSdk(deps, ctx);
    const key = keyOf(ctx);
    const body = ctx.request.body as Record<string, unknown>;
    if (!checkBody(body)) refuse(checkBody.errors);
    const app = await appOf(deps, ctx);
    // The install's own external id, never one the body names (as the Live Activity token calls).
    await checkIdentity(deps.pool, app.id, { external_id_auth_hash: body.external_id_auth_hash }, { id: key.subscriptionId });
    await checkApnsInstall(deps.pool, app.id, key.subscriptionId, `${key.pushType} tokens`);
    if (!(await setPushTypeToken(deps.pool, { appId: app.id, ...key, token: String(body.push_token).toLowerCase() }))) {
      throw new NotFoundError('No such subscription.');
    }
    ctx.body = { success: true };
  };
}

/** DELETE /apps/{app_id}/subscriptions/{subscription_id}/push_tokens/{push_type} */
export function removePushTypeTokenRoute(deps: ApiDeps) {
  return async function removePushTypeTokenHandler(ctx: Context): Promise<void> {
    await drawSdk(deps, ctx);
    const key = keyOf(ctx);
    const app = await appOf(deps, ctx);
    if (!(await removePushTypeToken(deps.pool, { appId: app.id, ...key }))) throw new NotFoundError('No such push token.');
    ctx.body = { success: true };
  };
}
