// OneSignal's user and alias calls with the app's REST API key (issue 27; docs/api.md "Users"):
// createUser, getUser, updateUser, deleteUser, the alias calls by user or by subscription, and
// deleteSubscription.
// Order of checks as the send (DECISIONS "Limits"): key → body → the path's app → buckets →
// the body's rules → the work, in one transaction that locks the user (core/users/resolve.ts).
// Reads draw `read`; changes draw `users` (core/buckets/policy.ts) and need a key of scope send.
import type { Context } from 'koa';
import { AuthError, NotFoundError, ValidationError } from '../../core/errors.js';
import type { PoolClient } from '../../core/store/db.js';
import { inUserTransaction } from '../../core/users/transaction.js';
import { findUser, lockNames, userOfInstall } from '../../core/users/resolve.js';
import { addAliases, NO_SUCH_USER, readIdentity, readTags, readUser, removeAlias, writeProperties, type PropertiesChange } from '../../core/users/user-store.js';
import { createUser, type CreateUserBody } from '../../core/users/create-user.js';
import { eraseInstall, eraseUser } from '../../core/users/erase.js';
import { isUuid } from '../../core/formats/uuid.js';
import { assertStorableText } from '../../core/validation/untrusted-json.js';
import { codePointLength } from '../../core/validation/text.js';
import { checkBody } from '../../core/users/user-schema.js';
import { ONESIGNAL_ID, USER_LIMITS } from '../../core/users/user-limits.js';
import { ALIAS_LABEL_RULE, isAliasLabel } from '../../core/formats/alias-label.js';
import type { ApiDeps, ClassBucket } from '../shared/deps.js';
import { drawBuckets } from './notifications.js';


/** The key's app, named by the path (403 for another app's id, as a send's app_id). */
export async function keyApp(deps: ApiDeps, ctx: Context, bucket: ClassBucket): Promise<string> {
  const appId = String(ctx.params.app_id).toLowerCase();
  if (appId !== ctx.state.auth.appId) throw new AuthError('wrong_app');
  await drawBuckets(deps, ctx, { bucket });
  return appId;
}

/** The path's label and id, bounded like the bodies' (422 naming the part). */
function pathAlias(ctx: Context): { label: string; id: string } {
  const label = String(ctx.params.alias_label);
  const id = String(ctx.params.alias_id);
  if (label !== ONESIGNAL_ID && !isAliasLabel(label)) {
    throw new ValidationError({ field: 'alias_label', message: `alias_label must be onesignal_id or a label of ${ALIAS_LABEL_RULE}.` });
  }
  if (codePointLength(id) > USER_LIMITS.alias_id) throw new ValidationError({ field: 'alias_id', message: `alias_id is longer than ${USER_LIMITS.alias_id} characters.` });
  // A path is no JSON body: its text is checked here (a NUL reached SQL and answered 500).
  assertStorableText(id, 'alias_id');
  return { label, id };
}

/** A label the path names to delete: one an alias may have (422 otherwise, as the path's label). */
function labelToDelete(ctx: Context): string {
  const label = String(ctx.params.alias_label_to_delete);
  if (!isAliasLabel(label) && label !== ONESIGNAL_ID) {
    throw new ValidationError({ field: 'alias_label_to_delete', message: `alias_label_to_delete must be a label of ${ALIAS_LABEL_RULE}.` });
  }
  return label;
}

/**
 * Runs `work` on the user the path names (404 when none), in one transaction. `names`: the aliases
 * `work` will add, locked with the path's before any user (core/users/transaction.ts).
 */
export function onUser<T>(deps: ApiDeps, ctx: Context, appId: string, work: (db: PoolClient, userId: string) => Promise<T>, names: Array<[string, string]> = []): Promise<T> {
  const { label, id } = pathAlias(ctx);
  return inUserTransaction(deps.pool, async (db) => {
    if (names.length) await lockNames(db, appId, [[label, id], ...names]);
    const userId = await findUser(db, appId, label, id);
    if (userId === undefined) throw new NotFoundError(NO_SUCH_USER);
    return work(db, userId);
  });
}

/** Runs `work` on the user of the path's install (made from it when it had none). */
function onUserOfInstall<T>(deps: ApiDeps, ctx: Context, appId: string, work: (db: PoolClient, userId: string) => Promise<T>, names: Array<[string, string]> = []): Promise<T> {
  return inUserTransaction(deps.pool, async (db) => {
    if (names.length) await lockNames(db, appId, names);
    const userId = await userOfInstall(db, appId, String(ctx.params.subscription_id));
    if (userId === undefined) throw new NotFoundError('No such subscription.');
    return work(db, userId);
  });
}

export function createUserRoute(deps: ApiDeps) {
  return async function createUserHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    const body = ctx.request.body as CreateUserBody;
    checkBody('createUser', body);
    const outcome = await inUserTransaction(deps.pool, async (db) => {
      const made = await createUser(db, appId, body);
      return made.kind === 'conflict' ? made : { ...made, view: await readUser(db, made.userId) };
    });
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
    ctx.body = await onUser(deps, ctx, appId, (db, userId) => readUser(db, userId));
  };
}

export function updateUserRoute(deps: ApiDeps) {
  return async function updateUserHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    const body = ctx.request.body as { properties?: { tags?: Record<string, unknown>; language?: string; timezone_id?: string } };
    checkBody('updateUser', body);
    const change: PropertiesChange = { tags: readTags(body.properties?.tags) };
    if (body.properties?.language !== undefined) change.language = body.properties.language;
    if (body.properties?.timezone_id !== undefined) change.timezone_id = body.properties.timezone_id;
    const properties = await onUser(deps, ctx, appId, (db, userId) => writeProperties(db, userId, change));
    // OneSignal's PropertiesBody; the change is done (and seen by sends) when this answer leaves.
    ctx.status = 202;
    ctx.body = { properties };
  };
}

export function deleteUserRoute(deps: ApiDeps) {
  return async function deleteUserHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    const erased = await onUser(deps, ctx, appId, (db, userId) => eraseUser(db, appId, userId));
    ctx.body = { success: true, erased };
  };
}

export function createAliasRoute(deps: ApiDeps, by: 'user' | 'subscription') {
  return async function createAliasHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    const body = ctx.request.body as { identity: Record<string, string> };
    checkBody('identity', body);
    const on = by === 'user' ? onUser : onUserOfInstall;
    ctx.body = {
      identity: await on(deps, ctx, appId, async (db, userId) => {
        await addAliases(db, appId, userId, body.identity);
        return readIdentity(db, userId);
      }, Object.entries(body.identity)),
    };
  };
}

export function getAliasesRoute(deps: ApiDeps, by: 'user' | 'subscription') {
  return async function getAliasesHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'read');
    const on = by === 'user' ? onUser : onUserOfInstall;
    ctx.body = { identity: await on(deps, ctx, appId, (db, userId) => readIdentity(db, userId)) };
  };
}

export function deleteAliasRoute(deps: ApiDeps) {
  return async function deleteAliasHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    const label = labelToDelete(ctx);
    ctx.body = {
      identity: await onUser(deps, ctx, appId, async (db, userId) => {
        if (!(await removeAlias(db, userId, label))) throw new NotFoundError(`The user has no alias ${label.slice(0, USER_LIMITS.label)}.`);
        return readIdentity(db, userId);
      }),
    };
  };
}

/** deleteSubscription: the install erased for good in the request (202, as the client expects). */
export function deleteSubscriptionRoute(deps: ApiDeps) {
  return async function deleteSubscriptionHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    const id = String(ctx.params.id);
    const erased = isUuid(id) ? await inUserTransaction(deps.pool, (db) => eraseInstall(db, appId, id.toLowerCase())) : undefined;
    if (erased === undefined) throw new NotFoundError('No such subscription.');
    ctx.status = 202;
    ctx.body = { success: true, erased };
  };
}
