// The app-facing calls of the iOS SDK (DECISIONS "app-facing interfaces"): register or update an
// install, and report an open. Authenticated by the app id alone, which is public like the App ID
// inside the iOS app; limited per IP (the mount draws the SDK bucket: api/calls/mount.ts).
import type { Context } from 'koa';
import Type from 'typebox';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { getApp } from '../../core/apps/app-store.js';
import { installPlatform, patchSubscription, TEST_TYPE_ENVIRONMENT, upsertSubscription, type SubscriptionFields } from '../../core/subscriptions/subscription-store.js';
import { installTokenRule, isInstallToken, platformOf, storedToken, typeOf, type Platform, type SubscriptionType } from '../../core/formats/install-type.js';
import { recordOpen } from '../../core/send/opens.js';
import { writeInstall } from '../../core/users/install-join.js';
import { isWrapped, unwrapSubscription } from '../../core/subscriptions/subscription-body.js';
import type { ApiDeps } from '../shared/deps.js';
import { checkInstallTimeZone, INSTALL_SCHEMAS, INSTALL_SENTENCES, type InstallBody } from '../../core/validation/subscription-schema.js';
import { checked } from '../../core/validation/checker.js';
import { checkIdentity } from './identity.js';
import { isUuid } from '../../core/formats/uuid.js';
import { declare } from '../calls/call.js';
import { UNCHECKED_BODY } from '../calls/unchecked-body.js';
import { IDENTITY, SDK, json, r, ref } from '../openapi/answers.js';

/** The open's body; the OpenAPI document shows this same schema (Open). */
export const OPEN_BODY = Type.Object({ app_id: Type.String({ format: 'uuid' }), subscription_id: Type.String({ format: 'uuid' }) });

/**
 * `body` checked by the install fields' rules (the one checker), the token by `platform`'s:
 * a registration's by its type (iOSPush when absent), an update's by the install's.
 */
function checkInstall(platform: Platform, call: 'create' | 'patch', body: unknown): InstallBody {
  return checked(INSTALL_SCHEMAS[platform][call], body, INSTALL_SENTENCES[platform]);
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

/** The app an app-facing call names in its path: 404 when there is none (or it is disabled). */
export async function appOf(deps: ApiDeps, ctx: Context) {
  const appId = String(ctx.params.app_id);
  const app = isUuid(appId) ? await getApp(deps.pool, appId.toLowerCase()) : undefined;
  if (!app || app.disabled) throw new NotFoundError('No such app.');
  return app;
}

/** An update names the install's own type or none, and a token of its platform's rule. */
function checkSamePlatform(body: Record<string, unknown>, platform: Platform): void {
  if (body.type !== undefined && body.type !== typeOf(platform)) {
    throw new ValidationError(`type cannot change: this install is ${typeOf(platform)} (delete it and register the token as ${String(body.type)}).`);
  }
  if (body.token !== undefined && !isInstallToken(platform, body.token)) throw new ValidationError(`${installTokenRule(platform, 'token')}.`);
}


export const createSubscriptionCall = declare({
  operationId: 'registerSubscription',
  method: 'post',
  path: '/apps/{app_id}/subscriptions',
  access: 'app',
  // Checked after the app is found (404 first), by the type's token rule.
  body: UNCHECKED_BODY,
  bodyUnchecked: true,
  answers: {
    '200': { description: 'A known token, updated.', schema: 'SubscriptionId' },
    '201': { description: 'A new install.', schema: 'SubscriptionId' },
  },
  doc: {
    tags: ['sdk'],
    summary: 'Register an install (the App ID alone): a known token updates it.',
    requestBody: { required: true, content: json(ref('SubscriptionCreate')) },
    responses: {
      '403': IDENTITY,
      '409': { description: 'The external id names a user that already holds 20 subscriptions, or the token is an install of the other type (docs/decisions.md).', content: json(ref('Errors')) },
      '404': r('NotFound'),
      ...SDK,
    },
  },
  handler: (deps) =>
    async function createSubscriptionHandler(ctx, input): Promise<void> {
      const app = await appOf(deps, ctx);
      const platform = platformOf(input.body.type as SubscriptionType | undefined);
      const body = checkInstall(platform, 'create', input.body);
      await checkIdentity(deps.pool, app.id, body, { token: storedToken(platform, String(body.token)) });
      const fields = toFields(body, platform) as SubscriptionFields & { token: string };
      // One transaction with the install's user, locks in the user calls' order
      // (core/users/install-join.ts); an anonymous install that names no external id writes nothing more.
      const result = (await writeInstall(deps.pool, app.id, { token: fields.token }, fields, (db) => upsertSubscription(db, app.id, fields, platform)))!;
      ctx.status = result.created ? 201 : 200;
      ctx.body = { id: result.id };
    },
});

export const updateSubscriptionCall = declare({
  operationId: 'updateSubscription',
  method: 'patch',
  path: '/apps/{app_id}/subscriptions/{id}',
  access: 'app',
  // Checked once the install is found: its platform decides the token's rule and sentence.
  body: UNCHECKED_BODY,
  bodyUnchecked: true,
  answers: { '200': { description: 'Updated.', schema: 'SubscriptionId' } },
  doc: {
    tags: ['sdk'],
    summary: 'Update an install (the App ID alone).',
    description: "The app's flat fields, or the official client's updateSubscription body {\"subscription\": {type, token, enabled, test_type}} (another field of it is a 422 naming it).",
    requestBody: { required: true, content: json({ anyOf: [ref('SubscriptionPatch'), ref('SubscriptionBody')] }) },
    responses: { '403': IDENTITY, '404': r('NotFound'), '409': r('Conflict'), ...SDK },
  },
  handler: (deps) =>
    async function updateSubscriptionHandler(ctx, { body: given }): Promise<void> {
      const app = await appOf(deps, ctx);
      const id = String(ctx.params.id);
      const installId = id.toLowerCase();
      // The install's platform decides the token's rule and sentence; it never changes (docs/decisions.md).
      const platform = await installPlatform(deps.pool, app.id, installId);
      // The official client's updateSubscription wraps the fields: {"subscription": {...}}.
      const body = checkInstall(platform ?? 'ios', 'patch', isWrapped(given) ? unwrapSubscription(given, platform) : given);
      if (platform === undefined) throw new NotFoundError('No such subscription.');
      checkSamePlatform(body, platform);
      await checkIdentity(deps.pool, app.id, body, { id: installId });
      const fields = toFields(body, platform);
      const found = isUuid(id) && (await writeInstall(deps.pool, app.id, { id: installId }, fields, async (db) =>
        (await patchSubscription(db, app.id, installId, fields)) ? { id: installId } : undefined));
      if (!found) throw new NotFoundError('No such subscription.');
      ctx.body = { id: id.toLowerCase() };
    },
});

export const reportOpenCall = declare({
  operationId: 'reportOpen',
  method: 'post',
  path: '/notifications/{id}/opened',
  access: 'app',
  body: OPEN_BODY,
  answers: { '200': { description: "Recorded (clicked rises once per install that was in the send's audience; other opens are answered alike and not counted).", schema: 'Success' } },
  doc: {
    tags: ['sdk'],
    summary: 'An install opened a notification of a send.',
    parameters: [{ name: 'id', in: 'path', required: true, description: 'The send id.', schema: { type: 'string' } }],
    requestBody: { required: true, content: json(ref('Open')) },
    responses: { '404': r('NotFound'), ...SDK },
  },
  handler: (deps) =>
    async function reportOpenHandler(ctx, { body }): Promise<void> {
      const sendId = String(ctx.params.id);
      if (!/^\d{1,15}$/.test(sendId)) throw new NotFoundError();
      const outcome = await recordOpen(deps.pool, body.app_id.toLowerCase(), Number(sendId), body.subscription_id.toLowerCase());
      if (outcome === 'unknown_send') throw new NotFoundError();
      if (outcome === 'unknown_subscription') throw new NotFoundError('No such subscription.');
      ctx.body = { success: true };
    },
});
