// What OneSignal's v1 SDK reports of a device between registrations (issue 38 point 1): a purchase
// (POST /players/{id}/on_purchase) adds to its amount spent, time in the app (POST
// /players/{id}/on_focus) to its session time; on_session is an edit plus one session
// (players.ts). And a backend's tags for every device of one of its users (PUT
// /apps/{app_id}/users/{external_user_id}), as updateUser by the external_id alias.
// The counters touch no data identity verification protects (external id, tags): the app-facing
// forms need the App ID only.
import type { Context } from 'koa';
import { Ajv } from 'ajv';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { addToPlayer, tagExternalId } from '../../core/users/player-writes.js';
import { EXTERNAL_TAGS_SCHEMA, FOCUS_SCHEMA, PURCHASE_SCHEMA } from '../../core/subscriptions/player-report-schemas.js';
import { readTags } from '../../core/users/user-store.js';
import { LIMITS } from '../../core/validation/limits.js';
import { codePointLength } from '../../core/validation/text.js';
import { assertStorableText } from '../../core/validation/untrusted-json.js';
import type { ApiDeps } from '../shared/deps.js';
import { keyApp } from './users.js';
import { NO_PLAYER, playerApp } from './players.js';

const ajv = new Ajv({ allErrors: false, allowUnionTypes: true });
const checks = { on_purchase: ajv.compile(PURCHASE_SCHEMA), on_focus: ajv.compile(FOCUS_SCHEMA), tags: ajv.compile(EXTERNAL_TAGS_SCHEMA) };

function checkBody(which: keyof typeof checks, body: unknown): void {
  const check = checks[which];
  if (check(body)) return;
  const e = check.errors![0];
  const missing = (e.params as { missingProperty?: string }).missingProperty;
  const field = e.instancePath.replace(/^\//, '').replace(/\//g, '.') || missing || 'body';
  const message = missing ? `${missing} is required.`
    : field === 'state' ? 'state must be "ping".'
    : field.endsWith('.iso') ? `${field} must be a three-letter currency code such as USD.`
    : `${field} ${e.message ?? 'is not valid'}.`;
  throw new ValidationError({ field, message });
}

/** POST /players/{id}/on_purchase and /on_focus: {"success": true}. */
export function playerReportRoute(deps: ApiDeps, report: 'on_purchase' | 'on_focus') {
  return async function playerReportHandler(ctx: Context): Promise<void> {
    const body = ctx.request.body as Record<string, unknown>;
    const { appId } = await playerApp(deps, ctx, body.app_id);
    checkBody(report, body);
    const add = report === 'on_purchase'
      ? { amount: (body.purchases as Array<{ amount: number }>).reduce((sum, p) => sum + Math.round(p.amount * 100), 0) / 100 }
      : { seconds: body.active_time as number };
    if (!(await addToPlayer(deps.pool, appId, String(ctx.params.id), add))) throw new NotFoundError(NO_PLAYER);
    ctx.body = { success: true };
  };
}

/** PUT /apps/{app_id}/users/{external_user_id}: the tags on every device of that user; "" or null removes one. */
export function externalUserTagsRoute(deps: ApiDeps) {
  return async function externalUserTagsHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    const externalId = String(ctx.params.external_user_id);
    if (codePointLength(externalId) > LIMITS.external_id) {
      throw new ValidationError({ field: 'external_user_id', message: `external_user_id is longer than ${LIMITS.external_id} characters.` });
    }
    // A path is no JSON body: its text is checked here, as the user calls' paths are.
    assertStorableText(externalId, 'external_user_id');
    checkBody('tags', ctx.request.body);
    const tags = readTags((ctx.request.body as { tags: Record<string, unknown> }).tags)!;
    if (!(await tagExternalId(deps.pool, appId, externalId, tags))) throw new NotFoundError(`No device has the external_user_id ${externalId}.`);
    ctx.body = { success: true };
  };
}
