// The user and alias calls in the OpenAPI document (issue 27; api/routes/users.ts): the paths of
// @onesignal/node-onesignal 5.18.0, answered with its status codes. What differs from OneSignal:
// docs/api.md "Users".
import { APP_PARAM as APP, changeHelpers, pathParam as param, type Helpers } from './path-helpers.js';

const LABEL = param('alias_label', 'onesignal_id, external_id or a custom label.');
const ID = param('alias_id', "The user's id under that label.");
const SUBSCRIPTION = param('subscription_id', 'An install of the app (its user is made when it had none).');

export function userPaths(helpers: Helpers) {
  const { ok, r, json, ref, AUTHENTICATED } = helpers;
  const { body, changing } = changeHelpers(helpers);
  const byUser = [APP, LABEL, ID];
  return {
    '/apps/{app_id}/users': {
      post: {
        operationId: 'createUser',
        tags: ['users'],
        summary: 'A user with its aliases, properties and iOSPush or AndroidPush subscriptions (needs a key of scope send; the users bucket).',
        parameters: [APP],
        requestBody: body('UserCreate'),
        responses: {
          '200': ok('The aliases named one user: the rest were added to it.', 'User'),
          '201': ok('A new user.', 'User'),
          '409': {
            description: 'The aliases name more than one user (CreateUserConflict); or, as sentences, an alias of another user, or a token the app has as an install of the other type.',
            content: json({ oneOf: [ref('CreateUserConflict'), ref('Errors')] }),
          },
          ...changing,
        },
      },
    },
    '/apps/{app_id}/users/by/{alias_label}/{alias_id}': {
      get: {
        operationId: 'getUser',
        tags: ['users'],
        summary: 'A user by any alias (the read bucket).',
        parameters: byUser,
        responses: { '200': ok('The user.', 'User'), '404': r('NotFound'), '422': r('Invalid'), ...AUTHENTICATED },
      },
      patch: {
        operationId: 'updateUser',
        tags: ['users'],
        summary: 'Set, change or remove ("") tags, language and timezone_id; every install of the user carries them before the answer (the users bucket).',
        parameters: byUser,
        requestBody: body('UserUpdate'),
        responses: { '202': ok("The user's properties after the change.", 'UserProperties'), '404': r('NotFound'), ...changing },
      },
      delete: {
        operationId: 'deleteUser',
        tags: ['users'],
        summary: 'Erase the user for good, in the request: aliases, installs, tokens, opens and its ids in list sends (the users bucket).',
        parameters: byUser,
        responses: { '200': ok('Erased.', 'UserErased'), '404': r('NotFound'), '422': r('Invalid'), ...AUTHENTICATED },
      },
    },
    '/apps/{app_id}/users/by/{alias_label}/{alias_id}/identity': {
      get: {
        operationId: 'getAliases',
        tags: ['users'],
        summary: "A user's aliases (the read bucket).",
        parameters: byUser,
        responses: { '200': ok('The aliases.', 'UserIdentity'), '404': r('NotFound'), '422': r('Invalid'), ...AUTHENTICATED },
      },
      patch: {
        operationId: 'createAlias',
        tags: ['users'],
        summary: 'Add aliases to a user (the users bucket).',
        parameters: byUser,
        requestBody: body('UserIdentityBody'),
        responses: { '200': ok("The user's aliases.", 'UserIdentity'), '404': r('NotFound'), '409': r('Conflict'), ...changing },
      },
    },
    '/apps/{app_id}/users/by/{alias_label}/{alias_id}/identity/{alias_label_to_delete}': {
      delete: {
        operationId: 'deleteAlias',
        tags: ['users'],
        summary: 'Remove one alias of a user (the users bucket).',
        parameters: [...byUser, param('alias_label_to_delete', 'The label to remove (not onesignal_id).')],
        responses: { '200': ok("The user's aliases.", 'UserIdentity'), '404': r('NotFound'), '422': r('Invalid'), ...AUTHENTICATED },
      },
    },
    '/apps/{app_id}/users/by/{alias_label}/{alias_id}/subscriptions': {
      post: {
        operationId: 'createSubscription',
        tags: ['users'],
        summary: 'An iOSPush or AndroidPush install under the user; an install of the app with that token moves to it (the users bucket).',
        parameters: byUser,
        requestBody: body('UserSubscriptionCreate'),
        responses: {
          '200': ok('The install that had the token, now the user\'s.', 'UserSubscription'),
          '201': ok('A new install of the user.', 'UserSubscription'),
          '404': r('NotFound'),
          '409': { description: 'The user already holds 20 subscriptions, or the token is an install of the other type.', content: json(ref('Errors')) },
          ...changing,
        },
      },
    },
    '/apps/{app_id}/subscriptions/{subscription_id}/owner': {
      patch: {
        operationId: 'transferSubscription',
        tags: ['users'],
        summary: "Move an install to the user its body's one alias names; it takes that user's properties (the users bucket).",
        parameters: [APP, SUBSCRIPTION],
        requestBody: body('TransferSubscriptionBody'),
        responses: {
          '200': ok("The new user's aliases.", 'UserIdentity'),
          '404': r('NotFound'),
          '409': { description: 'The user already holds 20 subscriptions.', content: json(ref('Errors')) },
          ...changing,
        },
      },
    },
    '/apps/{app_id}/subscriptions_by_token/{token_type}/{token}': {
      patch: {
        operationId: 'updateSubscriptionByToken',
        tags: ['users'],
        summary: 'Change enabled and test_type of the install with that token and type; done when answered (the users bucket).',
        parameters: [APP, param('token_type', 'iOSPush or AndroidPush: the install\'s type.'), param('token', 'The APNs device token (hex) or the FCM registration token (as registered).')],
        requestBody: body('SubscriptionBody'),
        responses: { '202': { description: 'Changed.', content: json({ type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } }) }, '404': r('NotFound'), ...changing },
      },
    },
    '/apps/{app_id}/subscriptions/{subscription_id}/user/identity': {
      get: {
        operationId: 'getAliasesBySubscription',
        tags: ['users'],
        summary: "The aliases of an install's user (the read bucket).",
        parameters: [APP, SUBSCRIPTION],
        responses: { '200': ok('The aliases.', 'UserIdentity'), '404': r('NotFound'), ...AUTHENTICATED },
      },
      patch: {
        operationId: 'createAliasBySubscription',
        tags: ['users'],
        summary: "Add aliases to an install's user (the users bucket).",
        parameters: [APP, SUBSCRIPTION],
        requestBody: body('UserIdentityBody'),
        responses: { '200': ok("The user's aliases.", 'UserIdentity'), '404': r('NotFound'), '409': r('Conflict'), ...changing },
      },
    },
  };
}
