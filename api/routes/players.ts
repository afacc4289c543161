// OneSignal's v1 device calls as views of the installs Herald keeps (issue 38 point 1; docs/api.md
// "OneSignal's v1 device calls"): a player id is the subscription id. Bodies, answers and status
// codes are OneSignal's ({"success": true, "id": …}); errors are Herald's {"errors": [...]}.
// Two callers, as in OneSignal: a backend with its REST key (the v5 equivalents' scope and bucket:
// a change needs scope send and draws `users`, as createSubscription and updateUser; a read draws
// `read`, as the keyed read of a subscription), and an app with only its App ID, as the iOS SDK
// before 5 registers (the app-facing rules of POST /apps/{app_id}/subscriptions: the `sdk` bucket
// per IP and identity verification, api/routes/identity.ts).
import type { Context } from 'koa';
import { AuthError, NotFoundError, ValidationError } from '../../core/errors.js';
import { getApp } from '../../core/apps/app-store.js';
import { mayUse } from '../../core/apps/keys.js';
import { isUuid } from '../../core/formats/uuid.js';
import { readPlayerBody, deviceTypeProblem, DEVICE_TYPES } from '../../core/subscriptions/player-body.js';
import { listPlayers, platformOf, readPlayer, PLAYERS_PAGE_MAX } from '../../core/subscriptions/player-view.js';
import { erasePlayer, registerPlayer, updatePlayer } from '../../core/users/player-writes.js';
import type { ApiDeps } from '../shared/deps.js';
import { drawBuckets } from './notifications.js';
import { drawSdk } from './subscriptions.js';
import { checkIdentity } from './identity.js';

export const NO_PLAYER = 'No such player.';
const OFFSET_MAX = 2_147_483_647;

/**
 * The app a change is for: the key's (scope send; an app_id naming another app is a 403), or,
 * with no key, the app the body names (404 when there is none).
 */
export async function playerApp(deps: ApiDeps, ctx: Context, named: unknown): Promise<{ appId: string; keyed: boolean }> {
  const auth = ctx.state.auth as { appId: string; scope: Parameters<typeof mayUse>[0] } | undefined;
  if (auth) {
    if (!mayUse(auth.scope, 'send')) throw new AuthError('read_only');
    if (named !== undefined && (typeof named !== 'string' || named.toLowerCase() !== auth.appId)) throw new AuthError('wrong_app');
    await drawBuckets(deps, ctx, { bucket: 'users' });
    return { appId: auth.appId, keyed: true };
  }
  await drawSdk(deps, ctx);
  if (typeof named !== 'string') throw new ValidationError({ field: 'app_id', message: "app_id is required: the App ID (or call with the app's REST API key)." });
  const app = isUuid(named) ? await getApp(deps.pool, named.toLowerCase()) : undefined;
  if (!app || app.disabled) throw new NotFoundError('No such app.');
  return { appId: app.id, keyed: false };
}

/** A keyed read: the query's app_id, when given, must be the key's (403). */
async function readApp(deps: ApiDeps, ctx: Context): Promise<string> {
  const named = ctx.query.app_id;
  if (named !== undefined && (typeof named !== 'string' || named.toLowerCase() !== ctx.state.auth.appId)) throw new AuthError('wrong_app');
  await drawBuckets(deps, ctx, { bucket: 'read' });
  return ctx.state.auth.appId;
}

const now = (deps: ApiDeps) => (deps.now ?? (() => new Date()))();

/** POST /players: 200 {"success": true, "id"} for a new token and for a known one (OneSignal's answer). */
export function addPlayerRoute(deps: ApiDeps) {
  return async function addPlayerHandler(ctx: Context): Promise<void> {
    const body = ctx.request.body as Record<string, unknown>;
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
  };
}

/** PUT /players/{id} and POST /players/{id}/on_session (`sessions` 1: one more session). */
export function editPlayerRoute(deps: ApiDeps, sessions: 0 | 1) {
  return async function editPlayerHandler(ctx: Context): Promise<void> {
    const body = ctx.request.body as Record<string, unknown>;
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

/** GET /players/{id}?app_id=: the player (OneSignal's view device). */
export function viewPlayerRoute(deps: ApiDeps) {
  return async function viewPlayerHandler(ctx: Context): Promise<void> {
    const appId = await readApp(deps, ctx);
    const player = await readPlayer(deps.pool, appId, String(ctx.params.id), now(deps));
    if (!player) throw new NotFoundError(NO_PLAYER);
    ctx.body = player;
  };
}

function pageParam(ctx: Context, name: 'limit' | 'offset', fallback: number, min: number, max: number): number {
  const given = ctx.query[name];
  if (given === undefined || given === '') return fallback;
  const n = typeof given === 'string' && /^\d{1,10}$/.test(given) ? Number(given) : NaN;
  if (!(n >= min && n <= max)) throw new ValidationError({ field: name, message: `${name} must be a whole number from ${min} to ${max}.` });
  return n;
}

/** GET /players?app_id=&limit=&offset=: total_count, offset, limit, players (limit ≤ 300 as OneSignal). */
export function viewPlayersRoute(deps: ApiDeps) {
  return async function viewPlayersHandler(ctx: Context): Promise<void> {
    const appId = await readApp(deps, ctx);
    const limit = pageParam(ctx, 'limit', PLAYERS_PAGE_MAX, 1, PLAYERS_PAGE_MAX);
    const offset = pageParam(ctx, 'offset', 0, 0, OFFSET_MAX);
    ctx.body = await listPlayers(deps.pool, appId, limit, offset, now(deps));
  };
}

/** DELETE /players/{id}?app_id=: erased for good, as deleteSubscription (what went, counted). */
export function deletePlayerRoute(deps: ApiDeps) {
  return async function deletePlayerHandler(ctx: Context): Promise<void> {
    const { appId } = await playerApp(deps, ctx, ctx.query.app_id);
    const erased = await erasePlayer(deps.pool, appId, String(ctx.params.id));
    if (!erased) throw new NotFoundError(NO_PLAYER);
    ctx.body = { success: true, erased };
  };
}
