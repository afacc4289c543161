// The one mount of every declared call (./call.ts), in the contract's order of checks (DECISIONS
// "Limits"): the key from the header (401/403, drawing only `anonymous`) → the body read as JSON
// (400/413/415) → the app the call names is the key's (403) → the rate buckets (429) → the body's
// and the query's rules (422) → the handler. An app-facing call draws its IP's SDK bucket instead
// of a key's; its app is the handler's to find (404 "No such app.").
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { AuthError, ForbiddenError } from '../../core/errors.js';
import { checked } from '../../core/validation/checker.js';
import { mayUse } from '../../core/apps/keys.js';
import { authenticate, requireSendScope } from '../middleware/authenticate.js';
import { limitAnonymous } from '../middleware/limit-anonymous.js';
import { optionalKey } from '../middleware/optional-key.js';
import { jsonBody, optionalJsonBody } from '../middleware/json-body.js';
import type { KeyCache } from '../shared/key-cache.js';
import type { ApiDeps } from '../shared/deps.js';
import type { Access, AppSource, BucketOf, Call } from './call.js';
import { queryValues } from './query-values.js';
import { bodyField, bodyObject } from '../shared/body-field.js';

/** The router's path of a documented one: `/apps/{app_id}` → `/api/v1/apps/:app_id`. */
export function routerPath(path: string): string {
  return `/api/v1${path.replace(/\{(\w+)\}/g, ':$1')}`;
}

/** The app the request names (lowercase), if it names one. */
function namedApp(ctx: Context, source: AppSource): unknown {
  if (source === 'path') return String(ctx.params.app_id).toLowerCase();
  if (source === 'query') return ctx.query.app_id;
  // A body's app_id that is not text names no app: the body's rules say what is wrong with it.
  if (source === 'body') {
    const named = bodyField(ctx.request.body, 'app_id');
    return typeof named === 'string' ? named : undefined;
  }
  return undefined;
}

/** A keyed call naming another app than the key's: 403 (as a send's app_id), or the call's own sentence. */
function checkNamedApp(ctx: Context, call: Call): void {
  const named = namedApp(ctx, call.app ?? 'none');
  if (named === undefined && !call.appRequired) return;
  if (typeof named === 'string' && named.toLowerCase() === ctx.state.auth.appId) return;
  throw call.otherApp === undefined ? new AuthError('wrong_app') : new ForbiddenError(call.otherApp);
}

async function drawKeyed(deps: ApiDeps, ctx: Context, bucket: BucketOf): Promise<void> {
  if (!deps.rateLimiter) return;
  const draw = typeof bucket === 'function' ? bucket(ctx, bodyObject(ctx.request.body)) : { bucket };
  const headers = await deps.rateLimiter.drawAuthenticated({ ...draw, keyId: ctx.state.auth.keyId, appId: ctx.state.auth.appId, ip: ctx.state.ip });
  for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
}

async function drawSdk(deps: ApiDeps, ctx: Context): Promise<void> {
  const headers = await deps.rateLimiter?.drawSdk?.(ctx.state.ip);
  for (const [name, value] of Object.entries(headers ?? {})) ctx.set(name, value);
}

/** The guards of `access`: who may call, refused before the body is read. */
function guards(access: Access, keys: KeyCache, deps: ApiDeps): Middleware[] {
  const keyed = [limitAnonymous(deps.rateLimiter), authenticate(keys)];
  switch (access) {
    case 'public':
    case 'app':
      return [];
    case 'key':
      return keyed;
    case 'send-key':
      return [...keyed, requireSendScope()];
    case 'key-or-app':
      return [optionalKey(keyed)];
  }
}

/** The steps after the guards and the body: the named app, the draw, the checks, the handler. */
function run(call: Call, deps: ApiDeps): Middleware {
  const handle = call.handler(deps) as (ctx: Context, input: { body: unknown; query: unknown }) => Promise<void>;
  return async function declaredCall(ctx) {
    const keyed = ctx.state.auth !== undefined;
    if (keyed) {
      // A key-or-app call changes an app's installs: with a key, it needs scope send.
      if (call.access === 'key-or-app' && !mayUse(ctx.state.auth.scope, 'send')) throw new AuthError('read_only');
      checkNamedApp(ctx, call);
      if (call.bucket) await drawKeyed(deps, ctx, call.bucket);
    } else if (call.access === 'app' || call.access === 'key-or-app') {
      await drawSdk(deps, ctx);
    }
    const body = call.body && !call.bodyUnchecked ? checked(call.body, ctx.request.body, call.sentences) : ctx.request.body;
    const query = call.query ? checked(call.query, queryValues(call.query, ctx.query), call.querySentences) : undefined;
    await handle(ctx, { body, query });
  };
}

/** Mounts every call of `calls` on `router`. */
export function mountCalls(router: Router, calls: readonly Call[], deps: ApiDeps, keys: KeyCache): void {
  for (const call of calls) {
    const takesBody = call.body !== undefined || call.bodyUnchecked === true || call.bodyOptional === true;
    const reading = takesBody ? [call.bodyOptional ? optionalJsonBody() : jsonBody()] : [];
    router[call.method](routerPath(call.path), ...guards(call.access, keys, deps), ...reading, run(call, deps));
  }
}
