// The audience pages of issue 27 (point 7): users and installs to browse, a user's page, and its
// erasure. Every query is the session's app's, so another app's user is "Not found" like an
// unknown one. Erasing asks first (a GET page), then its POST (CSRF token, a key of scope send,
// the `users` bucket as deleteUser) runs core/users' eraseUser, the one erasure deleteUser runs.
import { mayUse } from '../../../core/apps/keys.js';
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { getApp } from '../../../core/apps/app-store.js';
import { ForbiddenError, NotFoundError } from '../../../core/errors.js';
import { SENDS_CHECKED, sendsOfInstall } from '../../../core/audience/member.js';
import { readNotification, type NotificationReport } from '../../../core/send/report.js';
import { browseInstalls, countInstalls, INSTALLS_PAGE } from '../../../core/subscriptions/browse-installs.js';
import { browseUsers, countUsers, installsOfUser, userOfApp, USERS_PAGE } from '../../../core/users/browse-users.js';
import { NO_SUCH_USER, readUser } from '../../../core/users/user-store.js';
import { inUserTransaction } from '../../../core/users/transaction.js';
import { findUser } from '../../../core/users/resolve.js';
import { eraseUser } from '../../../core/users/erase.js';
import { ONESIGNAL_ID } from '../../../core/users/user-limits.js';
import type { ApiDeps } from '../../shared/deps.js';
import { eraseConfirmPage, erasedText, installsPage, userPage, usersPage } from '../pages/users.js';
import { layoutOf, page, session } from '../respond.js';

const ERASE_NEEDS_SEND_SCOPE = 'Erasing a user needs a key of scope send.';
/** How many of the sends that reached a user its page lists. */
const SENDS_SHOWN = 10;

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? '';
/** The rows before a page, as its query carries them (display only: the keyset is the cursor). */
const fromOf = (ctx: Context) => Math.max(0, Math.min(Number.MAX_SAFE_INTEGER, Number.parseInt(one(ctx.query.from), 10) || 0));

export function mountUsers(router: Router, deps: ApiDeps, signedIn: Middleware[], changes: Middleware[]): void {
  const userId = (ctx: Context) => String(ctx.params.id).toLowerCase();

  /** The users page from `after` (none: the first), with a note on top when given. */
  const listUsers = async (ctx: Context, after: string | undefined, note?: string) => {
    const appId = session(ctx).appId;
    const from = after ? fromOf(ctx) : 0;
    const [{ users, more }, total] = await Promise.all([browseUsers(deps.pool, appId, after), countUsers(deps.pool, appId)]);
    const next = more ? `after=${users[users.length - 1].id}&from=${from + USERS_PAGE}` : undefined;
    page(ctx, layoutOf(ctx, 'Users', 'audience'), usersPage(users, { total, from, next, later: !!after }, note));
  };

  router.get('/dashboard/audience/users', ...signedIn, (ctx) => listUsers(ctx, one(ctx.query.after) || undefined));

  router.get('/dashboard/audience/installs', ...signedIn, async (ctx) => {
    const appId = session(ctx).appId;
    const before = /^\d{1,18}$/.test(one(ctx.query.before)) ? Number(one(ctx.query.before)) : undefined;
    const from = before !== undefined ? fromOf(ctx) : 0;
    const [{ installs, more }, total] = await Promise.all([browseInstalls(deps.pool, appId, before), countInstalls(deps.pool, appId)]);
    const next = more ? `before=${installs[installs.length - 1].seq}&from=${from + INSTALLS_PAGE}` : undefined;
    page(ctx, layoutOf(ctx, 'Installs', 'audience'), installsPage(installs, { total, from, next, later: before !== undefined }));
  });

  router.get('/dashboard/audience/users/:id', ...signedIn, async (ctx) => {
    const s = session(ctx);
    const id = userId(ctx);
    const app = (await userOfApp(deps.pool, s.appId, id)) ? await getApp(deps.pool, s.appId) : undefined;
    if (!app) throw new NotFoundError(NO_SUCH_USER);
    const [view, installs] = await Promise.all([readUser(deps.pool, id), installsOfUser(deps.pool, s.appId, id)]);
    // The sends of any of its installs (core/audience/member.ts, as an install's page), newest first.
    const ids = new Set<number>();
    for (const install of installs) for (const sendId of await sendsOfInstall(deps.pool, app, install)) ids.add(sendId);
    const latest = [...ids].sort((a, b) => b - a).slice(0, SENDS_SHOWN);
    const sends = (await Promise.all(latest.map((n) => readNotification(deps.pool, s.appId, n)))).filter((n): n is NotificationReport => !!n);
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
    const erased = await inUserTransaction(deps.pool, async (db) => {
      const found = await findUser(db, s.appId, ONESIGNAL_ID, userId(ctx));
      return found === undefined ? undefined : eraseUser(db, s.appId, found);
    });
    if (!erased) throw new NotFoundError(NO_SUCH_USER);
    ctx.state.log.info({ userId: userId(ctx), erased }, 'user erased from the dashboard');
    // Answered with the users page and what went (a reload asks again and finds no such user).
    await listUsers(ctx, undefined, erasedText(erased));
  });
}
