// OneSignal's user and alias calls with the app's REST API key (issue 27; docs/api.md "Users"):
// createUser, getUser, updateUser, deleteUser, the alias calls by user or by subscription, and
// deleteSubscription.
// Order of checks as the send (DECISIONS "Limits"): key → body → the path's app → buckets →
// the body's rules → the work: one user operation (core/users/operations.ts) owning its transaction and lock order.
// Reads draw `read`; changes draw `users` (core/buckets/policy.ts) and need a key of scope send.
import type { Context } from 'koa';
import { AuthError, NotFoundError } from '../../core/errors.js';
import { addUserAliases, changeUser, createUser, deleteUserAlias, eraseUser, getAliases, getUser, type UserRef } from '../../core/users/operations.js';
import { propertiesChange, type PropertiesBody } from '../../core/users/user-store.js';
import { eraseSubscription } from '../../core/users/subscription-operations.js';
import type { CreateUserBody } from '../../core/users/create-user.js';
import { checkBody } from '../../core/users/user-schema.js';
import type { ApiDeps, ClassBucket } from '../shared/deps.js';
import { drawBuckets } from './notifications.js';


/** The key's app, named by the path (403 for another app's id, as a send's app_id). */
export async function keyApp(deps: ApiDeps, ctx: Context, bucket: ClassBucket): Promise<string> {
  const appId = String(ctx.params.app_id).toLowerCase();
  if (appId !== ctx.state.auth.appId) throw new AuthError('wrong_app');
  await drawBuckets(deps, ctx, { bucket });
  return appId;
}

/** The user the path names: by its alias, or (`subscription`) as the user of the path's install. */
export function pathUser(ctx: Context, by: 'user' | 'subscription' = 'user'): UserRef {
  if (by === 'subscription') return { installId: String(ctx.params.subscription_id) };
  return { alias: { label: String(ctx.params.alias_label), id: String(ctx.params.alias_id) } };
}

export function createUserRoute(deps: ApiDeps) {
  return async function createUserHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    const body = ctx.request.body as CreateUserBody;
    checkBody('createUser', body);
    const outcome = await createUser(deps.pool, appId, body);
    if (outcome.kind === 'conflict') {
      // OneSignal's CreateUserConflictResponse: the aliases that name different users.
      ctx.status = 409;
      ctx.body = { errors: [{ code: 'user-2', title: 'The aliases name more than one user of this app.', meta: { conflicting_aliases: outcome.conflicting } }] };
      return;
    }
    ctx.status = outcome.kind === 'created' ? 201 : 200;
    ctx.body = outcome.view;
  };
}

export function getUserRoute(deps: ApiDeps) {
  return async function getUserHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'read');
    ctx.body = await getUser(deps.pool, appId, pathUser(ctx));
  };
}

export function updateUserRoute(deps: ApiDeps) {
  return async function updateUserHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    const body = ctx.request.body as { properties?: PropertiesBody };
    checkBody('updateUser', body);
    const properties = await changeUser(deps.pool, appId, pathUser(ctx), propertiesChange(body.properties));
    // OneSignal's PropertiesBody; the change is done (and seen by sends) when this answer leaves.
    ctx.status = 202;
    ctx.body = { properties };
  };
}

export function deleteUserRoute(deps: ApiDeps) {
  return async function deleteUserHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    ctx.body = { success: true, erased: await eraseUser(deps.pool, appId, pathUser(ctx)) };
  };
}

export function createAliasRoute(deps: ApiDeps, by: 'user' | 'subscription') {
  return async function createAliasHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    const body = ctx.request.body as { identity: Record<string, string> };
    checkBody('identity', body);
    ctx.body = { identity: await addUserAliases(deps.pool, appId, pathUser(ctx, by), body.identity) };
  };
}

export function getAliasesRoute(deps: ApiDeps, by: 'user' | 'subscription') {
  return async function getAliasesHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'read');
    ctx.body = { identity: await getAliases(deps.pool, appId, pathUser(ctx, by)) };
  };
}

export function deleteAliasRoute(deps: ApiDeps) {
  return async function deleteAliasHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    ctx.body = { identity: await deleteUserAlias(deps.pool, appId, pathUser(ctx), String(ctx.params.alias_label_to_delete)) };
  };
}

/** deleteSubscription: the install erased for good in the request (202, as the client expects). */
export function deleteSubscriptionRoute(deps: ApiDeps) {
  return async function deleteSubscriptionHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    const erased = await eraseSubscription(deps.pool, appId, String(ctx.params.id));
    if (erased === undefined) throw new NotFoundError('No such subscription.');
    ctx.status = 202;
    ctx.body = { success: true, erased };
  };
}
