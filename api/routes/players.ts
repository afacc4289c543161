// OneSignal's v1 device calls as views of the installs Herald keeps (issue 38 point 1; docs/api.md
// "OneSignal's v1 device calls"): a player id is the subscription id. Bodies, answers and status
// codes are OneSignal's ({"success": true, "id": …}); errors are Herald's {"errors": [...]}.
// Two callers, as in OneSignal: a backend with its REST key (the v5 equivalents' scope and bucket:
// a change needs scope send and draws `users`, as createSubscription and updateUser; a read draws
// `read`, as the keyed read of a subscription), and an app with only its App ID, as the iOS SDK
// before 5 registers (the app-facing rules of POST /apps/{app_id}/subscriptions: the `sdk` bucket
// per IP and identity verification, api/routes/identity.ts). The mount (api/calls/mount.ts) checks
// the key's scope and app and draws the buckets; finding the app of an app-facing call is ours.
import type { Context } from 'koa';
import { AuthError, NotFoundError, ValidationError } from '../../core/errors.js';
import { getApp } from '../../core/apps/app-store.js';
import { isUuid } from '../../core/formats/uuid.js';
import { readPlayerBody, deviceTypeProblem, DEVICE_TYPES, PLAYER_BODY } from '../../core/subscriptions/player-body.js';
import { listPlayers, platformOf, readPlayer, PLAYERS_PAGE_MAX } from '../../core/subscriptions/player-view.js';
import { erasePlayer, registerPlayer, updatePlayer } from '../../core/users/player-writes.js';
import type { ApiDeps } from '../shared/deps.js';
import { declare, type Call } from '../calls/call.js';
import { AUTHENTICATED, CHANGING, json, r, ref } from '../openapi/answers.js';
import { checkIdentity } from './identity.js';

export const NO_PLAYER = 'No such player.';
const OFFSET_MAX = 2_147_483_647;

/**
 * The app a change is for: the key's (the mount checked its scope and the body's app_id, and drew
 * its bucket), or, with no key, the app the body names (404 when there is none).
 */
export async function playerApp(deps: ApiDeps, ctx: Context, named: unknown): Promise<{ appId: string; keyed: boolean }> {
  if (ctx.state.auth) {
    // An app_id that is no text (null, a number) names no app of the key's: 403, as before the mount.
    if (named !== undefined && typeof named !== 'string') throw new AuthError('wrong_app');
    return { appId: ctx.state.auth.appId, keyed: true };
  }
  if (typeof named !== 'string') throw new ValidationError({ field: 'app_id', message: "app_id is required: the App ID (or call with the app's REST API key)." });
  const app = isUuid(named) ? await getApp(deps.pool, named.toLowerCase()) : undefined;
  if (!app || app.disabled) throw new NotFoundError('No such app.');
  return { appId: app.id, keyed: false };
}

const now = (deps: ApiDeps) => (deps.now ?? (() => new Date()))();

const ID = { name: 'id', in: 'path', required: true, description: 'The player id (the subscription id).', schema: { type: 'string' } };
const APP_QUERY = { name: 'app_id', in: 'query', required: false, description: "The key's app (another app's id: 403).", schema: { type: 'string' } };
const page = (name: string, description: string, max: number) => ({ name, in: 'query', required: false, description, schema: { type: 'integer', minimum: 0, maximum: max } });
const IDENTITY_OR_KEY = { description: 'A read key on a change, app_id of another app, a key outside its allow-list, or (app-facing) identity verification on and external_user_id_auth_hash missing or wrong.', content: json(ref('Errors')) };
/** The refusals of a change made with a key or with the App ID alone. */
export const PLAYER_CHANGE = { ...CHANGING, '403': IDENTITY_OR_KEY, '404': r('NotFound') };

/** A change of a player's: with a key (scope send, the users bucket, the key's app) or the App ID alone. */
// The body is read by readPlayerBody once the app (and the player) are found, in OneSignal's order of refusals.
export const playerChange = { access: 'key-or-app', app: 'body', bucket: 'users', bodyUnchecked: true } as const satisfies Partial<Call>;

export const addPlayerCall = declare({
  operationId: 'addDevice',
  method: 'post',
  path: '/players',
  ...playerChange,
  body: PLAYER_BODY,
  answers: { '200': { description: 'Registered or updated.', schema: 'PlayerAdded' } },
  doc: {
    tags: ['players'],
    summary: 'Register a device (v1): device_type 0 iOS or 1 Android and its token; a known token updates its player.',
    requestBody: { required: true, content: json(ref('PlayerRequest')) },
    responses: { '409': r('Conflict'), ...PLAYER_CHANGE },
  },
  // 200 {"success": true, "id"} for a new token and for a known one (OneSignal's answer).
  handler: (deps) =>
    async function addPlayerHandler(ctx, { body }): Promise<void> {
      const { appId, keyed } = await playerApp(deps, ctx, body.app_id);
      if (body.device_type === undefined) throw new ValidationError({ field: 'device_type', message: 'device_type is required: 0 iOS or 1 Android.' });
      const refused = deviceTypeProblem(body.device_type);
      if (refused) throw new ValidationError({ field: 'device_type', message: refused });
      const platform = DEVICE_TYPES[body.device_type as number];
      if (body.identifier === undefined || body.identifier === null || body.identifier === '') {
        throw new ValidationError({ field: 'identifier', message: 'identifier is required: Herald keeps an install by its push token (register once the app has one).' });
      }
      const change = readPlayerBody(body, undefined);
      const token = change.fields.token!;
      if (!keyed) await checkIdentity(deps.pool, appId, change.identityBody, { token });
      const { id } = await registerPlayer(deps.pool, appId, change, platform);
      ctx.body = { success: true, id };
    },
});

/** PUT /players/{id} and POST /players/{id}/on_session (`sessions` 1: one more session). */
function editPlayer(sessions: 0 | 1) {
  return (deps: ApiDeps) =>
    async function editPlayerHandler(ctx: Context, { body }: { body: Record<string, unknown> }): Promise<void> {
      const { appId, keyed } = await playerApp(deps, ctx, body.app_id);
      const id = String(ctx.params.id);
      const platform = await platformOf(deps.pool, appId, id);
      if (!platform) throw new NotFoundError(NO_PLAYER);
      const change = readPlayerBody(body, platform);
      if (!keyed) await checkIdentity(deps.pool, appId, change.identityBody, { id: id.toLowerCase() });
      if (!(await updatePlayer(deps.pool, appId, id, change, sessions))) throw new NotFoundError(NO_PLAYER);
      ctx.body = { success: true };
    };
}

export const editPlayerCall = declare({
  operationId: 'editDevice',
  method: 'put',
  path: '/players/{id}',
  ...playerChange,
  body: PLAYER_BODY,
  answers: { '200': { description: 'Changed.', schema: 'Success' } },
  doc: {
    tags: ['players'],
    summary: 'Change a player (v1 body; device_type cannot change).',
    parameters: [ID],
    requestBody: { required: true, content: json(ref('PlayerRequest')) },
    responses: { '409': r('Conflict'), ...PLAYER_CHANGE },
  },
  handler: editPlayer(0),
});

export const newSessionCall = declare({
  operationId: 'newSession',
  method: 'post',
  path: '/players/{id}/on_session',
  ...playerChange,
  body: PLAYER_BODY,
  answers: { '200': { description: 'Recorded.', schema: 'Success' } },
  doc: {
    tags: ['players'],
    summary: 'A new session: one more in session_count, last_active now, and the v1 fields given.',
    parameters: [ID],
    requestBody: { required: true, content: json(ref('PlayerRequest')) },
    responses: { '409': r('Conflict'), ...PLAYER_CHANGE },
  },
  handler: editPlayer(1),
});

/** A keyed read: the query's app_id, when given, must be the key's (403); the read bucket. */
const playerRead = { access: 'key', app: 'query', bucket: 'read' } as const satisfies Partial<Call>;

export const viewPlayerCall = declare({
  operationId: 'viewDevice',
  method: 'get',
  path: '/players/{id}',
  ...playerRead,
  answers: { '200': { description: 'The player.', schema: 'Player' } },
  doc: { tags: ['players'], summary: 'One player (the read bucket).', parameters: [ID, APP_QUERY], responses: { '404': r('NotFound'), ...AUTHENTICATED } },
  // The player (OneSignal's view device).
  handler: (deps) =>
    async function viewPlayerHandler(ctx): Promise<void> {
      const player = await readPlayer(deps.pool, ctx.state.auth.appId, String(ctx.params.id), now(deps));
      if (!player) throw new NotFoundError(NO_PLAYER);
      ctx.body = player;
    },
});

function pageParam(ctx: Context, name: 'limit' | 'offset', fallback: number, min: number, max: number): number {
  const given = ctx.query[name];
  if (given === undefined || given === '') return fallback;
  const n = typeof given === 'string' && /^\d{1,10}$/.test(given) ? Number(given) : NaN;
  if (!(n >= min && n <= max)) throw new ValidationError({ field: name, message: `${name} must be a whole number from ${min} to ${max}.` });
  return n;
}

export const viewPlayersCall = declare({
  operationId: 'viewDevices',
  method: 'get',
  path: '/players',
  ...playerRead,
  answers: { '200': { description: 'A page.', schema: 'PlayerPage' } },
  doc: {
    tags: ['players'],
    summary: "A page of the app's players, in registration order (the read bucket).",
    parameters: [APP_QUERY, page('limit', `1 to ${PLAYERS_PAGE_MAX} (default ${PLAYERS_PAGE_MAX}).`, PLAYERS_PAGE_MAX), page('offset', 'Players to skip.', OFFSET_MAX)],
    responses: { '422': r('Invalid'), ...AUTHENTICATED },
  },
  // total_count, offset, limit, players (limit ≤ 300 as OneSignal).
  handler: (deps) =>
    async function viewPlayersHandler(ctx): Promise<void> {
      const limit = pageParam(ctx, 'limit', PLAYERS_PAGE_MAX, 1, PLAYERS_PAGE_MAX);
      const offset = pageParam(ctx, 'offset', 0, 0, OFFSET_MAX);
      ctx.body = await listPlayers(deps.pool, ctx.state.auth.appId, limit, offset, now(deps));
    },
});

export const deletePlayerCall = declare({
  operationId: 'deleteDevice',
  method: 'delete',
  path: '/players/{id}',
  access: 'send-key',
  app: 'query',
  bucket: 'users',
  answers: { '200': { description: 'Erased.', schema: 'UserErased' } },
  doc: { tags: ['players'], summary: 'Erase a player for good, as deleteSubscription (scope send).', parameters: [ID, APP_QUERY], responses: { '404': r('NotFound'), ...AUTHENTICATED } },
  // Erased for good, as deleteSubscription (what went, counted).
  handler: (deps) =>
    async function deletePlayerHandler(ctx): Promise<void> {
      const erased = await erasePlayer(deps.pool, ctx.state.auth.appId, String(ctx.params.id));
      if (!erased) throw new NotFoundError(NO_PLAYER);
      ctx.body = { success: true, erased };
    },
});
