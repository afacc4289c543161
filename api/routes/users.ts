// OneSignal's user calls with the app's REST API key (issue 27; docs/api.md "Users"): createUser,
// getUser, updateUser, deleteUser, one declaration each (api/calls/call.ts). The mount checks the
// key, reads the body, refuses another app's id (403) and draws the bucket; the handler checks the
// body's rules (422), calls the user operation (core/users/operations.ts: its transaction and lock
// order) and shapes the answer. Reads draw `read`; changes draw `users` and need a key of scope send.
// The alias calls are ./user-aliases.ts, the subscription calls ./user-subscriptions.ts.
import type { Context } from 'koa';
import { AuthError } from '../../core/errors.js';
import { changeUser, createUser, eraseUser, getUser, type UserRef } from '../../core/users/operations.js';
import { propertiesChange } from '../../core/users/user-store.js';
import type { AliasRef } from '../../core/users/alias-path.js';
import { checkBody, USER_BODIES } from '../../core/users/user-schema.js';
import { declare } from '../calls/call.js';
import { CHANGING, AUTHENTICATED, json, r, ref } from '../openapi/answers.js';
import { APP_PARAM, pathParam } from '../openapi/path-helpers.js';
import type { ApiDeps, ClassBucket } from '../shared/deps.js';
import { drawBuckets } from './notifications.js';

/** The key's app, named by the path (403 for another app's id, as a send's app_id): the v1 calls' guard (player-sessions.ts). */
export async function keyApp(deps: ApiDeps, ctx: Context, bucket: ClassBucket): Promise<string> {
  const appId = String(ctx.params.app_id).toLowerCase();
  if (appId !== ctx.state.auth.appId) throw new AuthError('wrong_app');
  await drawBuckets(deps, ctx, { bucket });
  return appId;
}

/** The alias the path names (checked by the operation: core/users/alias-path.ts). */
export const pathAliasOf = (ctx: Context): AliasRef => ({ label: String(ctx.params.alias_label), id: String(ctx.params.alias_id) });

/** The user the path names: by its alias, or (`subscription`) as the user of the path's install. */
export function pathUser(ctx: Context, by: 'user' | 'subscription' = 'user'): UserRef {
  return by === 'subscription' ? { installId: String(ctx.params.subscription_id) } : { alias: pathAliasOf(ctx) };
}

/** A user's path and its documented parameters. */
export const USER_PATH = '/apps/{app_id}/users/by/{alias_label}/{alias_id}';
export const USER_PARAMS = [APP_PARAM, pathParam('alias_label', 'onesignal_id, external_id or a custom label.'), pathParam('alias_id', "The user's id under that label.")];
/** Who makes a user call and what it draws: a change needs a key of scope send and draws `users`, a read any key and `read`; the path names the app. */
export const USER_CHANGE = { access: 'send-key', app: 'path', bucket: 'users' } as const;
export const USER_READ = { access: 'key', app: 'path', bucket: 'read' } as const;
/** A body given as one of the document's components. */
export const bodyOf = (component: string) => ({ required: true, content: json(ref(component)) });

export const createUserCall = declare({
  operationId: 'createUser',
  method: 'post',
  path: '/apps/{app_id}/users',
  ...USER_CHANGE,
  body: USER_BODIES.createUser,
  bodyUnchecked: true,
  answers: {
    '200': { description: 'The aliases named one user: the rest were added to it.', schema: 'User' },
    '201': { description: 'A new user.', schema: 'User' },
  },
  doc: {
    tags: ['users'],
    summary: 'A user with its aliases, properties and iOSPush or AndroidPush subscriptions (needs a key of scope send; the users bucket).',
    parameters: [APP_PARAM],
    requestBody: bodyOf('UserCreate'),
    responses: {
      '409': {
        description: 'The aliases name more than one user (CreateUserConflict); or, as sentences, an alias of another user, or a token the app has as an install of the other type.',
        content: json({ oneOf: [ref('CreateUserConflict'), ref('Errors')] }),
      },
      ...CHANGING,
    },
  },
  handler: (deps) =>
    async function createUserHandler(ctx, { body }): Promise<void> {
      checkBody('createUser', body);
      const outcome = await createUser(deps.pool, ctx.state.auth.appId, body);
      if (outcome.kind === 'conflict') {
        // OneSignal's CreateUserConflictResponse: the aliases that name different users.
        ctx.status = 409;
        ctx.body = { errors: [{ code: 'user-2', title: 'The aliases name more than one user of this app.', meta: { conflicting_aliases: outcome.conflicting } }] };
        return;
      }
      ctx.status = outcome.kind === 'created' ? 201 : 200;
      ctx.body = outcome.view;
    },
});

export const getUserCall = declare({
  operationId: 'getUser',
  method: 'get',
  path: USER_PATH,
  ...USER_READ,
  answers: { '200': { description: 'The user.', schema: 'User' } },
  doc: { tags: ['users'], summary: 'A user by any alias (the read bucket).', parameters: USER_PARAMS, responses: { '404': r('NotFound'), '422': r('Invalid'), ...AUTHENTICATED } },
  handler: (deps) =>
    async function getUserHandler(ctx): Promise<void> {
      ctx.body = await getUser(deps.pool, ctx.state.auth.appId, pathUser(ctx));
    },
});

export const updateUserCall = declare({
  operationId: 'updateUser',
  method: 'patch',
  path: USER_PATH,
  ...USER_CHANGE,
  body: USER_BODIES.updateUser,
  bodyUnchecked: true,
  answers: { '202': { description: "The user's properties after the change.", schema: 'UserProperties' } },
  doc: {
    tags: ['users'],
    summary: 'Set, change or remove ("") tags, language and timezone_id; every install of the user carries them before the answer (the users bucket).',
    parameters: USER_PARAMS,
    requestBody: bodyOf('UserUpdate'),
    responses: { '404': r('NotFound'), ...CHANGING },
  },
  handler: (deps) =>
    async function updateUserHandler(ctx, { body }): Promise<void> {
      checkBody('updateUser', body);
      const properties = await changeUser(deps.pool, ctx.state.auth.appId, pathUser(ctx), propertiesChange(body.properties));
      // OneSignal's PropertiesBody; the change is done (and seen by sends) when this answer leaves.
      ctx.status = 202;
      ctx.body = { properties };
    },
});

export const deleteUserCall = declare({
  operationId: 'deleteUser',
  method: 'delete',
  path: USER_PATH,
  ...USER_CHANGE,
  answers: { '200': { description: 'Erased.', schema: 'UserErased' } },
  doc: {
    tags: ['users'],
    summary: 'Erase the user for good, in the request: aliases, installs, tokens, opens and its ids in list sends (the users bucket).',
    parameters: USER_PARAMS,
    responses: { '404': r('NotFound'), '422': r('Invalid'), ...AUTHENTICATED },
  },
  handler: (deps) =>
    async function deleteUserHandler(ctx): Promise<void> {
      ctx.body = { success: true, erased: await eraseUser(deps.pool, ctx.state.auth.appId, pathUser(ctx)) };
    },
});
