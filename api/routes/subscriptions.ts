// The app-facing calls of the iOS SDK (DECISIONS "app-facing interfaces"): register or update an
// install, and report an open. Authenticated by the app id alone, which is public like the App ID
// inside the iOS app; limited per IP.
import type { Context } from 'koa';
import { Ajv } from 'ajv';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { getApp } from '../../core/apps/app-store.js';
import { installPlatform, patchSubscription, TEST_TYPE_ENVIRONMENT, upsertSubscription, type SubscriptionFields } from '../../core/subscriptions/subscription-store.js';
import { installTokenRule, isInstallToken, platformOf, storedToken, TOKEN_BY_TYPE_SCHEMA, typeOf, type Platform, type SubscriptionType } from '../../core/formats/install-type.js';
import { recordOpen } from '../../core/send/opens.js';
import { writeInstall } from '../../core/users/install-join.js';
import { isWrapped, unwrapSubscription } from '../../core/subscriptions/subscription-body.js';
import type { ApiDeps } from '../shared/deps.js';
import { checkInstallTimeZone, installFieldProblem, SUBSCRIPTION_FIELDS as fields } from '../../core/validation/subscription-schema.js';
import { checkIdentity } from './identity.js';
import { isUuid, UUID_PATTERN } from '../../core/formats/uuid.js';

/** At most this many messages in a 422: a body of 100,000 bad tags gets a short answer. */
const MAX_MESSAGES = 10;



// The first problem only: with allErrors, a body of 30,000 bad tags cost 30,000 error objects;
// an SDK fixes one field at a time anyway.
const ajv = new Ajv({ allErrors: false, allowUnionTypes: true });
// A registration's token follows its type (iOSPush when absent); an update's, the install's (below).
const checkCreate = ajv.compile({ type: 'object', properties: fields, required: ['token'], ...TOKEN_BY_TYPE_SCHEMA });
const checkPatch = ajv.compile({ type: 'object', properties: fields });
const checkOpen = ajv.compile({
  type: 'object',
  properties: { app_id: { type: 'string', pattern: UUID_PATTERN }, subscription_id: { type: 'string', pattern: UUID_PATTERN } },
  required: ['app_id', 'subscription_id'],
});

function messages(errors: typeof checkCreate.errors, platform: Platform = 'ios'): string[] {
  return (errors ?? []).slice(0, MAX_MESSAGES).map((e) => `${installFieldProblem(e, platform)}.`);
}

function toFields(body: Record<string, unknown>, platform: Platform): SubscriptionFields {
  const out: SubscriptionFields = {};
  if (typeof body.token === 'string') out.token = storedToken(platform, body.token);
  if ('external_id' in body) out.external_id = body.external_id as string | null;
  if ('language' in body) out.language = body.language as string | null;
  if ('timezone' in body) {
    const tz = body.timezone as string | null;
    const zoneProblem = checkInstallTimeZone(tz);
    if (zoneProblem) throw new ValidationError(`${zoneProblem}.`);
    out.timezone = tz;
  }
  if (body.tags) {
    out.tags = Object.fromEntries(Object.entries(body.tags as Record<string, unknown>).map(([k, v]) => [k, v === null ? null : String(v)]));
  }
  if (typeof body.subscribed === 'boolean') out.subscribed = body.subscribed;
  if ('test_type' in body) out.environment = TEST_TYPE_ENVIRONMENT[String(body.test_type)] ?? null;
  return out;
}


export async function appOf(deps: ApiDeps, ctx: Context) {
  const appId = String(ctx.params.app_id);
  const app = isUuid(appId) ? await getApp(deps.pool, appId.toLowerCase()) : undefined;
  if (!app || app.disabled) throw new NotFoundError('No such app.');
  return app;
}

export async function drawSdk(deps: ApiDeps, ctx: Context) {
  const headers = await deps.rateLimiter?.drawSdk?.(ctx.state.ip);
  for (const [name, value] of Object.entries(headers ?? {})) ctx.set(name, value);
}

export function createSubscription(deps: ApiDeps) {
  return async function createSubscriptionHandler(ctx: Context): Promise<void> {
    await drawSdk(deps, ctx);
    const app = await appOf(deps, ctx);
    const body = ctx.request.body as Record<string, unknown>;
    const platform = platformOf(body.type as SubscriptionType | undefined);
    if (!checkCreate(body)) throw new ValidationError(messages(checkCreate.errors, platform));
    await checkIdentity(deps.pool, app.id, body, { token: storedToken(platform, String(body.token)) });
    const fields = toFields(body, platform) as SubscriptionFields & { token: string };
    // One transaction with the install's user, locks in the user calls' order
    // (core/users/install-join.ts); an anonymous install that names no external id writes nothing more.
    const result = (await writeInstall(deps.pool, app.id, { token: fields.token }, fields, (db) => upsertSubscription(db, app.id, fields, platform)))!;
    ctx.status = result.created ? 201 : 200;
    ctx.body = { id: result.id };
  };
}

export function updateSubscription(deps: ApiDeps) {
  return async function updateSubscriptionHandler(ctx: Context): Promise<void> {
    await drawSdk(deps, ctx);
    const app = await appOf(deps, ctx);
    const id = String(ctx.params.id);
    const installId = id.toLowerCase();
    // The install's platform decides the token's rule and sentence; it never changes (docs/decisions.md).
    const platform = await installPlatform(deps.pool, app.id, installId);
    const given = ctx.request.body as Record<string, unknown>;
    // The official client's updateSubscription wraps the fields: {"subscription": {...}}.
    const body = isWrapped(given) ? unwrapSubscription(given, platform) : given;
    if (!checkPatch(body)) throw new ValidationError(messages(checkPatch.errors, platform));
    if (platform === undefined) throw new NotFoundError('No such subscription.');
    checkSamePlatform(body, platform);
    await checkIdentity(deps.pool, app.id, body, { id: installId });
    const fields = toFields(body, platform);
    const found = isUuid(id) && (await writeInstall(deps.pool, app.id, { id: installId }, fields, async (db) =>
      (await patchSubscription(db, app.id, installId, fields)) ? { id: installId } : undefined));
    if (!found) throw new NotFoundError('No such subscription.');
    ctx.body = { id: id.toLowerCase() };
  };
}

/** An update names the install's own type or none, and a token of its platform's rule. */
function checkSamePlatform(body: Record<string, unknown>, platform: Platform): void {
  if (body.type !== undefined && body.type !== typeOf(platform)) {
    throw new ValidationError(`type cannot change: this install is ${typeOf(platform)} (delete it and register the token as ${String(body.type)}).`);
  }
  if (body.token !== undefined && !isInstallToken(platform, body.token)) throw new ValidationError(`${installTokenRule(platform, 'token')}.`);
}

export function reportOpen(deps: ApiDeps) {
  return async function reportOpenHandler(ctx: Context): Promise<void> {
    await drawSdk(deps, ctx);
    const body = ctx.request.body as Record<string, unknown>;
    if (!checkOpen(body)) throw new ValidationError(messages(checkOpen.errors));
    const sendId = String(ctx.params.id);
    if (!/^\d{1,15}$/.test(sendId)) throw new NotFoundError();
    const outcome = await recordOpen(deps.pool, String(body.app_id).toLowerCase(), Number(sendId), String(body.subscription_id).toLowerCase());
    if (outcome === 'unknown_send') throw new NotFoundError();
    if (outcome === 'unknown_subscription') throw new NotFoundError('No such subscription.');
    ctx.body = { success: true };
  };
}
