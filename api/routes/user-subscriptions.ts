// The official client's subscription calls that name a user or a token, with the app's REST key
// (issue 27; docs/api.md "Users"): createSubscription under a user, transferSubscription to
// another user, updateSubscriptionByToken. Changes draw `users` and need a key of scope send; the
// path's app must be the key's (403), and an install or user of another app is not found (404).
import type { Context } from 'koa';
import { ValidationError } from '../../core/errors.js';
import { addUserSubscription, changeSubscriptionByToken, transferSubscription } from '../../core/users/subscription-operations.js';
import type { UserSubscriptionBody } from '../../core/users/create-user.js';
import { checkBody } from '../../core/users/user-schema.js';
import { unwrapSubscription } from '../../core/subscriptions/subscription-body.js';
import { TEST_TYPE_ENVIRONMENT, type SubscriptionFields } from '../../core/subscriptions/subscription-store.js';
import { installTokenRule, isInstallToken, platformOf, SUBSCRIPTION_TYPES, subscriptionTypeRule, type SubscriptionType } from '../../core/formats/install-type.js';
import type { ApiDeps } from '../shared/deps.js';
import { keyApp, pathUser } from './users.js';

/** createSubscription: 201 a new install of the user, 200 the install that had the token (moved to the user); 409 past 20. */
export function createUserSubscriptionRoute(deps: ApiDeps) {
  return async function createUserSubscriptionHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    const body = ctx.request.body as { subscription: UserSubscriptionBody };
    checkBody('createSubscription', body);
    const { created, subscription } = await addUserSubscription(deps.pool, appId, pathUser(ctx), body.subscription);
    ctx.status = created ? 201 : 200;
    ctx.body = { subscription };
  };
}

/** transferSubscription: the install moves to the user its body's one alias names; 200 that user's aliases. */
export function transferSubscriptionRoute(deps: ApiDeps) {
  return async function transferSubscriptionHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    const body = ctx.request.body as { identity: Record<string, string> };
    checkBody('transferSubscription', body);
    const [to] = Object.entries(body.identity);
    ctx.body = { identity: await transferSubscription(deps.pool, appId, String(ctx.params.subscription_id), to) };
  };
}

/**
 * updateSubscriptionByToken: `enabled` and `test_type` of the install with that token (202, done
 * when answered). The token and type name the install: changing them here is a 422 naming them.
 */
export function updateSubscriptionByTokenRoute(deps: ApiDeps) {
  return async function updateSubscriptionByTokenHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    const type = String(ctx.params.token_type);
    if (!(SUBSCRIPTION_TYPES as readonly string[]).includes(type)) {
      throw new ValidationError({ field: 'token_type', message: `${subscriptionTypeRule('token_type')}.` });
    }
    const platform = platformOf(type as SubscriptionType);
    const token = String(ctx.params.token);
    if (!isInstallToken(platform, token)) throw new ValidationError({ field: 'token', message: `${installTokenRule(platform, 'token')}.` });
    const flat = unwrapSubscription(ctx.request.body as Record<string, unknown>, platform);
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
    ctx.status = 202;
    ctx.body = { id: await changeSubscriptionByToken(deps.pool, appId, { platform, token }, fields) };
  };
}
