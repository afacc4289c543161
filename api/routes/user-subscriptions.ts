// The official client's subscription calls with the app's REST key (issue 27; docs/api.md
// "Users"): createSubscription under a user, transferSubscription to another user,
// updateSubscriptionByToken and deleteSubscription, one declaration each (api/calls/call.ts)
// calling the user operations (core/users/subscription-operations.ts). They draw `users` and need
// a key of scope send; the path's app must be the key's (403), and an install or user of another
// app is not found (404).
import Type from 'typebox';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { addUserSubscription, changeSubscriptionByToken, eraseSubscription, transferSubscription } from '../../core/users/subscription-operations.js';
import { NO_SUBSCRIPTION } from '../../core/users/operations.js';
import { checkBody, USER_BODIES } from '../../core/users/user-schema.js';
import { SUBSCRIPTION_BODY_SCHEMA, unwrapSubscription } from '../../core/subscriptions/subscription-body.js';
import { TEST_TYPE_ENVIRONMENT, type SubscriptionFields } from '../../core/subscriptions/subscription-store.js';
import { installTokenRule, isInstallToken, platformOf, SUBSCRIPTION_TYPES, subscriptionTypeRule, type SubscriptionType } from '../../core/formats/install-type.js';
import { declare } from '../calls/call.js';
import { AUTHENTICATED, CHANGING, json, r, ref } from '../openapi/answers.js';
import { APP_PARAM, pathParam } from '../openapi/path-helpers.js';
import { bodyOf, pathAliasOf, USER_CHANGE, USER_PARAMS, USER_PATH } from './users.js';

const CONFLICT = (description: string) => ({ description, content: json(ref('Errors')) });

/** createSubscription: 201 a new install of the user, 200 the install that had the token (moved to the user); 409 past 20. */
export const createUserSubscriptionCall = declare({
  operationId: 'createSubscription',
  method: 'post',
  path: `${USER_PATH}/subscriptions`,
  ...USER_CHANGE,
  body: USER_BODIES.createSubscription,
  bodyUnchecked: true,
  answers: {
    '200': { description: 'The install that had the token, now the user\'s.', schema: 'UserSubscription' },
    '201': { description: 'A new install of the user.', schema: 'UserSubscription' },
  },
  doc: {
    tags: ['users'],
    summary: 'An iOSPush or AndroidPush install under the user; an install of the app with that token moves to it (the users bucket).',
    parameters: USER_PARAMS,
    requestBody: bodyOf('UserSubscriptionCreate'),
    responses: { '404': r('NotFound'), '409': CONFLICT('The user already holds 20 subscriptions, or the token is an install of the other type.'), ...CHANGING },
  },
  handler: (deps) =>
    async function createUserSubscriptionHandler(ctx, { body }): Promise<void> {
      checkBody('createSubscription', body);
      const { created, subscription } = await addUserSubscription(deps.pool, ctx.state.auth.appId, pathAliasOf(ctx), body.subscription);
      ctx.status = created ? 201 : 200;
      ctx.body = { subscription };
    },
});

/** transferSubscription: the install moves to the user its body's one alias names; 200 that user's aliases. */
export const transferSubscriptionCall = declare({
  operationId: 'transferSubscription',
  method: 'patch',
  path: '/apps/{app_id}/subscriptions/{subscription_id}/owner',
  ...USER_CHANGE,
  body: USER_BODIES.transferSubscription,
  bodyUnchecked: true,
  answers: { '200': { description: "The new user's aliases.", schema: 'UserIdentity' } },
  doc: {
    tags: ['users'],
    summary: "Move an install to the user its body's one alias names; it takes that user's properties (the users bucket).",
    parameters: [APP_PARAM, pathParam('subscription_id', 'An install of the app (its user is made when it had none).')],
    requestBody: bodyOf('TransferSubscriptionBody'),
    responses: { '404': r('NotFound'), '409': CONFLICT('The user already holds 20 subscriptions.'), ...CHANGING },
  },
  handler: (deps) =>
    async function transferSubscriptionHandler(ctx, { body }): Promise<void> {
      checkBody('transferSubscription', body);
      const [to] = Object.entries(body.identity);
      ctx.body = { identity: await transferSubscription(deps.pool, ctx.state.auth.appId, String(ctx.params.subscription_id), to) };
    },
});

/** The install's fields updateSubscriptionByToken changes; the token and type name the install (a 422 naming them). */
function fieldsByToken(flat: Record<string, unknown>, type: string): SubscriptionFields {
  // The client may repeat the path's type in the body; another type would change the install.
  if (flat.type === type) delete flat.type;
  for (const field of ['token', 'type', 'external_id_auth_hash']) {
    if (field in flat) {
      const named = field === 'external_id_auth_hash' ? field : `subscription.${field}`;
      throw new ValidationError({ field: named, message: `${named} cannot be changed by token: the path's token and type name the install (change a token with updateSubscription).` });
    }
  }
  const fields: SubscriptionFields = {};
  if (typeof flat.subscribed === 'boolean') fields.subscribed = flat.subscribed;
  if ('test_type' in flat) fields.environment = TEST_TYPE_ENVIRONMENT[String(flat.test_type)] ?? null;
  return fields;
}

/**
 * updateSubscriptionByToken: `enabled` and `test_type` of the install with that token (202, done
 * when answered). The path's type and token are checked before the body (the install's rule).
 */
export const updateSubscriptionByTokenCall = declare({
  operationId: 'updateSubscriptionByToken',
  method: 'patch',
  path: '/apps/{app_id}/subscriptions_by_token/{token_type}/{token}',
  ...USER_CHANGE,
  body: Type.Unsafe<Record<string, unknown>>(SUBSCRIPTION_BODY_SCHEMA),
  bodyUnchecked: true,
  answers: { '202': { description: 'Changed.', schema: Type.Object({ id: Type.String({ format: 'uuid' }) }) } },
  doc: {
    tags: ['users'],
    summary: 'Change enabled and test_type of the install with that token and type; done when answered (the users bucket).',
    parameters: [APP_PARAM, pathParam('token_type', 'iOSPush or AndroidPush: the install\'s type.'), pathParam('token', 'The APNs device token (hex) or the FCM registration token (as registered).')],
    requestBody: bodyOf('SubscriptionBody'),
    responses: { '404': r('NotFound'), ...CHANGING },
  },
  handler: (deps) =>
    async function updateSubscriptionByTokenHandler(ctx, { body }): Promise<void> {
      const type = String(ctx.params.token_type);
      if (!(SUBSCRIPTION_TYPES as readonly string[]).includes(type)) {
        throw new ValidationError({ field: 'token_type', message: `${subscriptionTypeRule('token_type')}.` });
      }
      const platform = platformOf(type as SubscriptionType);
      const token = String(ctx.params.token);
      if (!isInstallToken(platform, token)) throw new ValidationError({ field: 'token', message: `${installTokenRule(platform, 'token')}.` });
      const fields = fieldsByToken(unwrapSubscription(body, platform), type);
      ctx.status = 202;
      ctx.body = { id: await changeSubscriptionByToken(deps.pool, ctx.state.auth.appId, { platform, token }, fields) };
    },
});

/** deleteSubscription: the install erased for good in the request (202, as the client expects). */
export const deleteSubscriptionCall = declare({
  operationId: 'deleteSubscription',
  method: 'delete',
  path: '/apps/{app_id}/subscriptions/{id}',
  ...USER_CHANGE,
  answers: { '202': { description: 'Erased.', schema: 'UserErased' } },
  doc: {
    tags: ['users'],
    summary: 'Erase one install for good, in the request: its token, Live Activity tokens, opens and its id in list sends (needs a key of scope send; the users bucket). Its user stays.',
    parameters: [{ name: 'app_id', in: 'path', required: true, schema: { type: 'string' } }, { name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    responses: { '404': r('NotFound'), ...AUTHENTICATED },
  },
  handler: (deps) =>
    async function deleteSubscriptionHandler(ctx): Promise<void> {
      const erased = await eraseSubscription(deps.pool, ctx.state.auth.appId, String(ctx.params.id));
      if (erased === undefined) throw new NotFoundError(NO_SUBSCRIPTION);
      ctx.status = 202;
      ctx.body = { success: true, erased };
    },
});
