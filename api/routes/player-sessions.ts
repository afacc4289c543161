// What OneSignal's v1 SDK reports of a device between registrations (issue 38 point 1): a purchase
// (POST /players/{id}/on_purchase) adds to its amount spent, time in the app (POST
// /players/{id}/on_focus) to its session time; on_session is an edit plus one session
// (players.ts). And a backend's tags for every device of one of its users (PUT
// /apps/{app_id}/users/{external_user_id}), as updateUser by the external_id alias.
// The counters touch no data identity verification protects (external id, tags): the app-facing
// forms need the App ID only. Bodies are checked by the one checker (core/validation/checker.ts)
// once the app is known, as before the mount (an unknown app is a 404 whatever the body).
import Type from 'typebox';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { addToPlayer, tagExternalId } from '../../core/users/player-writes.js';
import { EXTERNAL_TAGS_SCHEMA, FOCUS_SCHEMA, PURCHASE_SCHEMA } from '../../core/subscriptions/player-report-schemas.js';
import { readTags } from '../../core/users/user-store.js';
import { LIMITS } from '../../core/validation/limits.js';
import { codePointLength } from '../../core/validation/text.js';
import { checked } from '../../core/validation/checker.js';
import { assertStorableText } from '../../core/validation/untrusted-json.js';
import { declare } from '../calls/call.js';
import { UNCHECKED_BODY } from '../calls/unchecked-body.js';
import { CHANGING, json, r, ref } from '../openapi/answers.js';
import { NO_PLAYER, PLAYER_CHANGE, playerApp, playerChange } from './players.js';

// The schemas are core's (the document publishes them); their static types are these.
const PURCHASE = Type.Unsafe<{ app_id?: string; purchases: Array<{ sku: string; amount: number; iso: string }>; existing?: boolean }>(PURCHASE_SCHEMA);
const FOCUS = Type.Unsafe<{ app_id?: string; state: 'ping'; active_time: number }>(FOCUS_SCHEMA);
const EXTERNAL_TAGS = Type.Unsafe<{ app_id?: string; tags: Record<string, unknown> }>(EXTERNAL_TAGS_SCHEMA);

const PURCHASE_SENTENCES = { 'purchases[].iso': "A purchase's iso must be a three-letter currency code such as USD." };
const FOCUS_SENTENCES = { state: 'state must be "ping".' };

const ID = { name: 'id', in: 'path', required: true, description: 'The player id (the subscription id).', schema: { type: 'string' } };

export const newPurchaseCall = declare({
  operationId: 'newPurchase',
  method: 'post',
  path: '/players/{id}/on_purchase',
  ...playerChange,
  body: UNCHECKED_BODY,
  answers: { '200': { description: 'Recorded.', schema: 'Success' } },
  doc: {
    tags: ['players'],
    summary: 'Purchases: their amounts added to amount_spent.',
    parameters: [ID],
    requestBody: { required: true, content: json(ref('PlayerPurchase')) },
    responses: PLAYER_CHANGE,
  },
  handler: (deps) =>
    async function newPurchaseHandler(ctx, input): Promise<void> {
      const { appId } = await playerApp(deps, ctx, input.body.app_id);
      const body = checked(PURCHASE, input.body, PURCHASE_SENTENCES);
      const amount = body.purchases.reduce((sum, p) => sum + Math.round(p.amount * 100), 0) / 100;
      if (!(await addToPlayer(deps.pool, appId, String(ctx.params.id), { amount }))) throw new NotFoundError(NO_PLAYER);
      ctx.body = { success: true };
    },
});

export const incrementSessionLengthCall = declare({
  operationId: 'incrementSessionLength',
  method: 'post',
  path: '/players/{id}/on_focus',
  ...playerChange,
  body: UNCHECKED_BODY,
  answers: { '200': { description: 'Recorded.', schema: 'Success' } },
  doc: {
    tags: ['players'],
    summary: 'Time in the app: active_time added to playtime.',
    parameters: [ID],
    requestBody: { required: true, content: json(ref('PlayerFocus')) },
    responses: PLAYER_CHANGE,
  },
  handler: (deps) =>
    async function incrementSessionLengthHandler(ctx, input): Promise<void> {
      const { appId } = await playerApp(deps, ctx, input.body.app_id);
      const body = checked(FOCUS, input.body, FOCUS_SENTENCES);
      if (!(await addToPlayer(deps.pool, appId, String(ctx.params.id), { seconds: body.active_time }))) throw new NotFoundError(NO_PLAYER);
      ctx.body = { success: true };
    },
});

export const externalUserTagsCall = declare({
  operationId: 'editTagsWithExternalUserIdDevice',
  method: 'put',
  path: '/apps/{app_id}/users/{external_user_id}',
  access: 'send-key',
  app: 'path',
  bucket: 'users',
  // Checked after the path's external_user_id, as before the mount.
  body: UNCHECKED_BODY,
  bodyUnchecked: true,
  answers: { '200': { description: 'Changed.', schema: 'Success' } },
  doc: {
    tags: ['players'],
    summary: 'Tags on every device of that external id, as updateUser by its external_id alias ("" or null removes one; scope send).',
    parameters: [{ name: 'app_id', in: 'path', required: true, description: "The key's app (another app's id: 403).", schema: { type: 'string' } }, { name: 'external_user_id', in: 'path', required: true, description: 'The external id.', schema: { type: 'string' } }],
    requestBody: { required: true, content: json(ref('ExternalUserTags')) },
    responses: { '404': r('NotFound'), ...CHANGING },
  },
  // The tags on every device of that user; "" or null removes one.
  handler: (deps) =>
    async function externalUserTagsHandler(ctx, input): Promise<void> {
      const appId = ctx.state.auth.appId;
      const externalId = String(ctx.params.external_user_id);
      if (codePointLength(externalId) > LIMITS.external_id) {
        throw new ValidationError({ field: 'external_user_id', message: `external_user_id is longer than ${LIMITS.external_id} characters.` });
      }
      // A path is no JSON body: its text is checked here, as the user calls' paths are.
      assertStorableText(externalId, 'external_user_id');
      const body = checked(EXTERNAL_TAGS, input.body);
      const tags = readTags(body.tags)!;
      if (!(await tagExternalId(deps.pool, appId, externalId, tags))) throw new NotFoundError(`No device has the external_user_id ${externalId}.`);
      ctx.body = { success: true };
    },
});
