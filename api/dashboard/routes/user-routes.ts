// The audience pages of issue 27 (point 7) and issue 40 (point 5): users (their rows, and those
// named only by an external id) and installs to browse, a user found by any alias, a user's page,
// and its erasure. Every query is the session's app's, so another app's user is "Not found" like an
// unknown one. Erasing asks first (a GET page), then its POST (CSRF token, a key of scope send,
// the `users` bucket as deleteUser) runs core/users/operations.ts eraseUser, the one erasure deleteUser runs.
import { mayUse } from '../../../core/apps/keys.js';
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { getApp } from '../../../core/apps/app-store.js';
import { ForbiddenError, NotFoundError } from '../../../core/errors.js';
import { SENDS_CHECKED, sendsOfInstall } from '../../../core/audience/member.js';
import { readNotification, type NotificationReport } from '../../../core/send/report.js';
import { browseInstalls, countInstalls, INSTALLS_PAGE } from '../../../core/subscriptions/browse-installs.js';
import { isInstallPlatform } from '../../../core/subscriptions/find.js';
import { installsOfUser, userOfApp } from '../../../core/users/browse-users.js';
import { browseAllUsers, countAllUsers, unnamedUser, userOfAlias, type UsersCursor } from '../../../core/dashboard-reads/users-list.js';
import type { AppRecord } from '../../../core/apps/app-store.js';
import type { BrowsedInstall } from '../../../core/subscriptions/browse-installs.js';
import { USER_LIMITS } from '../../../core/users/user-limits.js';
import { NO_SUCH_USER, readUser } from '../../../core/users/user-store.js';
import { eraseUser } from '../../../core/users/operations.js';
import { isUuid } from '../../../core/formats/uuid.js';
import { EXTERNAL_ID, ONESIGNAL_ID } from '../../../core/users/user-limits.js';
import type { ApiDeps } from '../../shared/deps.js';
import { eraseConfirmPage, erasedText, installsPage, unnamedUserPage, userPage, usersPage } from '../pages/users.js';
import { layoutOf, page, session } from '../respond.js';

const ERASE_NEEDS_SEND_SCOPE = 'Erasing a user needs a key of scope send.';
/** How many of the sends that reached a user its page lists. */
const SENDS_SHOWN = 10;

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? '';
/** The rows before a page, as its query carries them (display only: the keyset is the cursor). */
const fromOf = (ctx: Context) => Math.max(0, Math.min(Number.MAX_SAFE_INTEGER, Number.parseInt(one(ctx.query.from), 10) || 0));

/** The users page and the sends that reached a user's installs, for one api's dependencies. */
function userPages(deps: ApiDeps) {
  /** The users page from `cursor` (none: the first), with a note on top, or the find box's refusal. */
  const listUsers = async (ctx: Context, cursor: UsersCursor, note?: string, find?: { label: string; id: string; error: string }, status = 200) => {
    const appId = session(ctx).appId;
    const from = cursor ? fromOf(ctx) : 0;
    const [{ entries, next }, total] = await Promise.all([browseAllUsers(deps.pool, appId, cursor), countAllUsers(deps.pool, appId)]);
    const query = next && new URLSearchParams({ ...('after' in next ? { after: next.after } : { x: next.afterExternal }), from: String(from + entries.length) }).toString();
    page(ctx, layoutOf(ctx, 'Users', 'audience'), usersPage(entries, { total, from, next: query, later: !!cursor }, note, find), status);
  };
  /** The sends that reached any of these installs (core/audience/member.ts, as an install's page), newest first. */
  const sendsOf = async (app: AppRecord, installs: BrowsedInstall[]) => {
    const ids = new Set<number>();
    for (const install of installs) for (const sendId of await sendsOfInstall(deps.pool, app, install)) ids.add(sendId);
    const latest = [...ids].sort((a, b) => b - a).slice(0, SENDS_SHOWN);
    return (await Promise.all(latest.map((n) => readNotification(deps.pool, app.id, n)))).filter((n): n is NotificationReport => !!n);
  };
  return { listUsers, sendsOf };
}

/** A user found by any alias (issue 40 point 5). */
function mountUserLookup(router: Router, deps: ApiDeps, signedIn: Middleware[]): void {
  const { listUsers, sendsOf } = userPages(deps);
  // A user by any alias: its users row's page, or (an external id no user call has named yet) the
  // page of the installs that carry it. Nothing is made: a look never writes.
  router.get('/dashboard/audience/users/by-alias', ...signedIn, async (ctx) => {
    const s = session(ctx);
    const label = one(ctx.query.label).trim() || 'external_id';
    const id = one(ctx.query.id);
    const find = { label: label.slice(0, USER_LIMITS.label), id: id.slice(0, USER_LIMITS.alias_id) };
    if (!id || label.length > USER_LIMITS.label || [...id].length > USER_LIMITS.alias_id || id.includes('\u0000')) {
      return listUsers(ctx, undefined, undefined, { ...find, error: `Give an alias label (up to ${USER_LIMITS.label} characters) and its id (up to ${USER_LIMITS.alias_id}).` }, 400);
    }
    const userId = await userOfAlias(deps.pool, s.appId, label, id);
    if (userId) return ctx.redirect(`/dashboard/audience/users/${userId}`);
    const unnamed = label === EXTERNAL_ID ? await unnamedUser(deps.pool, s.appId, id) : undefined;
    const app = unnamed && (await getApp(deps.pool, s.appId));
    if (!unnamed || !app) return listUsers(ctx, undefined, undefined, { ...find, error: `No user of this app has the alias ${label} ${id}.` }, 404);
    page(ctx, layoutOf(ctx, `User of external id ${id}`, 'audience'), unnamedUserPage(unnamed, await sendsOf(app, unnamed.installs), SENDS_CHECKED));
  });
}

export function mountUsers(router: Router, deps: ApiDeps, signedIn: Middleware[], changes: Middleware[]): void {
  const userId = (ctx: Context) => String(ctx.params.id).toLowerCase();

  const { listUsers, sendsOf } = userPages(deps);

  router.get('/dashboard/audience/users', ...signedIn, (ctx) => {
    const after = one(ctx.query.after);
    const cursor: UsersCursor = typeof ctx.query.x === 'string' ? { afterExternal: ctx.query.x } : after ? { after } : undefined;
    return listUsers(ctx, cursor);
  });

  mountUserLookup(router, deps, signedIn);

  router.get('/dashboard/audience/installs', ...signedIn, async (ctx) => {
    const appId = session(ctx).appId;
    const before = /^\d{1,18}$/.test(one(ctx.query.before)) ? Number(one(ctx.query.before)) : undefined;
    const from = before !== undefined ? fromOf(ctx) : 0;
    // The filter's links give ios or android; anything else is the whole list, as no filter.
    const asked = one(ctx.query.platform);
    const platform = isInstallPlatform(asked) ? asked : undefined;
    const [{ installs, more }, total] = await Promise.all([browseInstalls(deps.pool, appId, before, platform), countInstalls(deps.pool, appId, platform)]);
    const next = more ? `before=${installs[installs.length - 1].seq}&from=${from + INSTALLS_PAGE}` : undefined;
    page(ctx, layoutOf(ctx, 'Installs', 'audience'), installsPage(installs, { total, from, next, later: before !== undefined }, platform));
  });

  router.get('/dashboard/audience/users/:id', ...signedIn, async (ctx) => {
    const s = session(ctx);
    const id = userId(ctx);
    const app = (await userOfApp(deps.pool, s.appId, id)) ? await getApp(deps.pool, s.appId) : undefined;
    if (!app) throw new NotFoundError(NO_SUCH_USER);
    const [view, installs] = await Promise.all([readUser(deps.pool, id), installsOfUser(deps.pool, s.appId, id)]);
    const sends = await sendsOf(app, installs);
    page(ctx, layoutOf(ctx, `User ${id}`, 'audience'), userPage({ id, view, installs, sends, checked: SENDS_CHECKED, canErase: mayUse(s.scope, 'send') }));
  });

  // A GET only asks: the change is the POST of its form.
  router.get('/dashboard/audience/users/:id/erase', ...signedIn, async (ctx) => {
    const s = session(ctx);
    if (!mayUse(s.scope, 'send')) throw new ForbiddenError(ERASE_NEEDS_SEND_SCOPE);
    const id = userId(ctx);
    if (!(await userOfApp(deps.pool, s.appId, id))) throw new NotFoundError(NO_SUCH_USER);
    page(ctx, layoutOf(ctx, `Erase user ${id}?`, 'audience'), eraseConfirmPage(id, await readUser(deps.pool, id), s.csrf));
  });

  router.post('/dashboard/audience/users/:id/erase', ...signedIn, ...changes, async (ctx) => {
    const s = session(ctx);
    if (!mayUse(s.scope, 'send')) throw new ForbiddenError(ERASE_NEEDS_SEND_SCOPE);
    if (deps.rateLimiter) await deps.rateLimiter.drawAuthenticated({ bucket: 'users', keyId: s.keyId, appId: s.appId, ip: ctx.state.ip });
    // deleteUser's operation, by the user's own id: an id that is no UUID names no user (404, as
    // an unknown one), not a path part too long (the REST call's 422).
    if (!isUuid(userId(ctx))) throw new NotFoundError(NO_SUCH_USER);
    const erased = await eraseUser(deps.pool, s.appId, { alias: { label: ONESIGNAL_ID, id: userId(ctx) } });
    ctx.state.log.info({ userId: userId(ctx), erased }, 'user erased from the dashboard');
    // Answered with the users page and what went (a reload asks again and finds no such user).
    await listUsers(ctx, undefined, erasedText(erased));
  });
}
