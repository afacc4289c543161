// OneSignal's alias calls with the app's REST API key (issue 27; docs/api.md "Users"): a user's
// aliases read, added and deleted, by one of its aliases or by one of its installs, one
// declaration each (api/calls/call.ts) calling the user operations (core/users/operations.ts).
// Reads draw `read`; changes draw `users` and need a key of scope send.
import { addUserAliases, deleteUserAlias, getAliases } from '../../core/users/operations.js';
import { checkBody, USER_BODIES } from '../../core/users/user-schema.js';
import { declare } from '../calls/call.js';
import { AUTHENTICATED, CHANGING, r } from '../openapi/answers.js';
import { APP_PARAM, pathParam } from '../openapi/path-helpers.js';
import { bodyOf, pathUser, USER_CHANGE, USER_READ, USER_PARAMS, USER_PATH } from './users.js';

const BY_INSTALL_PATH = '/apps/{app_id}/subscriptions/{subscription_id}/user/identity';
const BY_INSTALL_PARAMS = [APP_PARAM, pathParam('subscription_id', 'An install of the app (its user is made when it had none).')];
const ALIASES = { '200': { description: 'The aliases.', schema: 'UserIdentity' } };
const USER_ALIASES = { '200': { description: "The user's aliases.", schema: 'UserIdentity' } };

/** getAliases and getAliasesBySubscription: the user's aliases with its OneSignal id. */
function getAliasesCall(by: 'user' | 'subscription') {
  return declare({
    operationId: by === 'user' ? 'getAliases' : 'getAliasesBySubscription',
    method: 'get',
    path: by === 'user' ? `${USER_PATH}/identity` : BY_INSTALL_PATH,
    ...USER_READ,
    answers: ALIASES,
    doc: by === 'user'
      ? { tags: ['users'], summary: "A user's aliases (the read bucket).", parameters: USER_PARAMS, responses: { '404': r('NotFound'), '422': r('Invalid'), ...AUTHENTICATED } }
      : { tags: ['users'], summary: "The aliases of an install's user (the read bucket).", parameters: BY_INSTALL_PARAMS, responses: { '404': r('NotFound'), ...AUTHENTICATED } },
    handler: (deps) =>
      async function getAliasesHandler(ctx): Promise<void> {
        ctx.body = { identity: await getAliases(deps.pool, ctx.state.auth.appId, pathUser(ctx, by)) };
      },
  });
}

/** createAlias and createAliasBySubscription: aliases added to the user (409: another user's). */
function createAliasCall(by: 'user' | 'subscription') {
  return declare({
    operationId: by === 'user' ? 'createAlias' : 'createAliasBySubscription',
    method: 'patch',
    path: by === 'user' ? `${USER_PATH}/identity` : BY_INSTALL_PATH,
    ...USER_CHANGE,
    body: USER_BODIES.identity,
    bodyUnchecked: true,
    answers: USER_ALIASES,
    doc: {
      tags: ['users'],
      summary: by === 'user' ? 'Add aliases to a user (the users bucket).' : "Add aliases to an install's user (the users bucket).",
      parameters: by === 'user' ? USER_PARAMS : BY_INSTALL_PARAMS,
      requestBody: bodyOf('UserIdentityBody'),
      responses: { '404': r('NotFound'), '409': r('Conflict'), ...CHANGING },
    },
    handler: (deps) =>
      async function createAliasHandler(ctx, { body }): Promise<void> {
        checkBody('identity', body);
        ctx.body = { identity: await addUserAliases(deps.pool, ctx.state.auth.appId, pathUser(ctx, by), body.identity) };
      },
  });
}

export const getAliasesByUserCall = getAliasesCall('user');
export const createAliasByUserCall = createAliasCall('user');

export const deleteAliasCall = declare({
  operationId: 'deleteAlias',
  method: 'delete',
  path: `${USER_PATH}/identity/{alias_label_to_delete}`,
  ...USER_CHANGE,
  answers: USER_ALIASES,
  doc: {
    tags: ['users'],
    summary: 'Remove one alias of a user (the users bucket).',
    parameters: [...USER_PARAMS, pathParam('alias_label_to_delete', 'The label to remove (not onesignal_id).')],
    responses: { '404': r('NotFound'), '422': r('Invalid'), ...AUTHENTICATED },
  },
  handler: (deps) =>
    async function deleteAliasHandler(ctx): Promise<void> {
      ctx.body = { identity: await deleteUserAlias(deps.pool, ctx.state.auth.appId, pathUser(ctx), String(ctx.params.alias_label_to_delete)) };
    },
});

export const getAliasesBySubscriptionCall = getAliasesCall('subscription');
export const createAliasBySubscriptionCall = createAliasCall('subscription');
