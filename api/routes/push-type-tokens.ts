// The app-facing calls for an install's other push tokens (issue 29; docs/api.md "Push types"):
// a PushKit VoIP or complication token, a location push token, a push-to-talk token, a WidgetKit
// widgets or controls token, each handed out by Apple apart from the alert token. Shaped as the
// Live Activity push-to-start calls (live-activity-tokens.ts): anonymous (the app id is public),
// the SDK bucket per IP (the mount's), bounded input (the one checker), the one token rule (core/formats/device-token.ts),
// identity verification when the install has an external id, and only an install of this app.
import type { Context } from 'koa';
import Type from 'typebox';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { isOwnTokenPushType, OWN_TOKEN_PUSH_TYPES, type OwnTokenPushType } from '../../core/payload/push-types.js';
import { removePushTypeToken, setPushTypeToken } from '../../core/subscriptions/push-type-tokens.js';
import { DEVICE_TOKEN_SCHEMA, deviceTokenRule } from '../../core/formats/device-token.js';
import { isUuid } from '../../core/formats/uuid.js';
import { EXTERNAL_ID_AUTH_HASH_SCHEMA } from '../../core/formats/identity-hash.js';
import { checkApnsInstall } from '../../core/subscriptions/subscription-store.js';
import { checked } from '../../core/validation/checker.js';
import { declare } from '../calls/call.js';
import { IDENTITY, SDK, json, r, ref } from '../openapi/answers.js';
import { appOf } from './subscriptions.js';
import { checkIdentity } from './identity.js';

/** The body of the set call; the OpenAPI document shows this same schema (api/openapi/schemas.ts). */
export const PUSH_TYPE_TOKEN_BODY = Type.Object({
  push_token: Type.Unsafe<string>({ ...DEVICE_TOKEN_SCHEMA, description: "The install's token of that push type (PushKit, CLLocationManager, PTChannelManager or WidgetKit), hex." }),
  device_type: Type.Optional(Type.Unsafe<0>({ enum: [0], description: '0: iOS.' })),
  external_id_auth_hash: Type.Optional(Type.Unsafe<string>(EXTERNAL_ID_AUTH_HASH_SCHEMA)),
});

const SENTENCES = {
  'push_token:required': 'push_token is required.',
  push_token: `${deviceTokenRule('push_token', "the install's token of that push type")}.`,
  device_type: 'device_type must be 0 (iOS).',
};

export const PUSH_TYPE_RULE = `push_type is one of ${OWN_TOKEN_PUSH_TYPES.join(', ')}: the push types with a token of their own.`;

/** The path's install and push type; the type is checked first, so an unknown one is a 422 naming it. */
function keyOf(ctx: Context): { subscriptionId: string; pushType: OwnTokenPushType } {
  const pushType = String(ctx.params.push_type);
  if (!isOwnTokenPushType(pushType)) throw new ValidationError(PUSH_TYPE_RULE);
  const id = String(ctx.params.subscription_id);
  if (!isUuid(id)) throw new NotFoundError('No such subscription.');
  return { subscriptionId: id.toLowerCase(), pushType };
}

const PATH = '/apps/{app_id}/subscriptions/{subscription_id}/push_tokens/{push_type}';
/** The push type of an install's own-token call: one of the types with a token of their own. */
const PUSH_TYPE_PARAM = { name: 'push_type', in: 'path', required: true, schema: { type: 'string', enum: [...OWN_TOKEN_PUSH_TYPES] } };

export const setPushTypeTokenCall = declare({
  operationId: 'setPushTypeToken',
  method: 'put',
  path: PATH,
  access: 'app',
  // Checked by the handler after the path (an unknown push type is a 422 naming it, whatever the body).
  body: PUSH_TYPE_TOKEN_BODY,
  bodyUnchecked: true,
  answers: { '200': { description: "Set (replaces the install's earlier token of that type).", schema: 'Success' } },
  doc: {
    tags: ['sdk'],
    summary: "An install's token of a push type with a token of its own (VoIP, location, complication, push-to-talk, widgets, controls); a send with that apns_push_type_override goes to it (docs/api.md \"Push types\").",
    parameters: [PUSH_TYPE_PARAM],
    requestBody: { required: true, content: json(ref('PushTypeToken')) },
    responses: { '403': IDENTITY, '404': r('NotFound'), ...SDK },
  },
  handler: (deps) =>
    async function setPushTypeTokenHandler(ctx, input): Promise<void> {
      const key = keyOf(ctx);
      const body = checked(PUSH_TYPE_TOKEN_BODY, input.body, SENTENCES);
      const app = await appOf(deps, ctx);
      // The install's own external id, never one the body names (as the Live Activity token calls).
      await checkIdentity(deps.pool, app.id, { external_id_auth_hash: body.external_id_auth_hash }, { id: key.subscriptionId });
      await checkApnsInstall(deps.pool, app.id, key.subscriptionId, `${key.pushType} tokens`);
      if (!(await setPushTypeToken(deps.pool, { appId: app.id, ...key, token: body.push_token.toLowerCase() }))) {
        throw new NotFoundError('No such subscription.');
      }
      ctx.body = { success: true };
    },
});

export const removePushTypeTokenCall = declare({
  operationId: 'removePushTypeToken',
  method: 'delete',
  path: PATH,
  access: 'app',
  answers: { '200': { description: 'Removed.', schema: 'Success' } },
  doc: {
    tags: ['sdk'],
    summary: "The install's token of that push type goes (its alert token stays).",
    parameters: [PUSH_TYPE_PARAM],
    responses: { '404': r('NotFound'), ...SDK },
  },
  handler: (deps) =>
    async function removePushTypeTokenHandler(ctx): Promise<void> {
      const key = keyOf(ctx);
      const app = await appOf(deps, ctx);
      if (!(await removePushTypeToken(deps.pool, { appId: app.id, ...key }))) throw new NotFoundError('No such push token.');
      ctx.body = { success: true };
    },
});
