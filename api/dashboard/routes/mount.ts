// The dashboard at /dashboard/: server-rendered pages and one small script, every asset
// served from here (air-gapped clusters). Sign in with a REST key; a `read` key sees, a `send` key
// may also compose and cancel. One app per session: every query is filtered by the session's app,
// so another app's send id is a 404 like an unknown one.
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { ForbiddenError, HeraldError } from '../../../core/errors.js';
import type { ApiDeps } from '../../shared/deps.js';
import { ipAllowed, type KeyCache } from '../../shared/key-cache.js';
import { dashboardErrors, errorList, invalidWhen } from '../errors.js';
import { html } from '../html.js';
import { page, session } from '../respond.js';
import { COOKIE, createSession, csrfValid, deleteSession, overTls, requireSession, setSessionCookie } from '../session.js';
import { composeEstimate, composeSend } from './compose-send.js';
import { serveAsset } from '../assets.js';
import { mountAudience } from './audience-routes.js';
import { mountSegments } from './segment-routes.js';
import { mountUsers } from './user-routes.js';
import { mountTemplates } from './template-routes.js';
import { mountEvents } from './event-routes.js';
import { mountOverview } from './overview-routes.js';
import { mountSends } from './send-routes.js';
import { mountSettings } from './settings-routes.js';
import { bodyField } from '../../shared/body-field.js';

/** The longest REST key the sign-in form takes (a key is far shorter; more is not looked up). */
const MAX_KEY_CHARS = 200;
// No inline script or style, nothing from elsewhere, never framed.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const safeHost = (origin: string) => {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
};

// Up to 1 MB, a REST body's bound (api/middleware/json-body.ts): a form stands for such a body, and a
// template of 100 languages fills several hundred kilobytes.
const form = bodyParser({ enableTypes: ['form'], formLimit: '1mb', onError() { throw new HeraldError(400, 'The form could not be read.'); } });


/** Every change: a form body with the session's CSRF token. */
function changes(): Middleware[] {
  return [form, async (ctx, next) => {
    if (!csrfValid(session(ctx), bodyField(ctx.request.body, '_csrf'))) {
      throw new ForbiddenError('This form has expired. Go back, reload the page and try again.');
    }
    await next();
  }];
}

function signInPage(ctx: Context, error?: string, status = 200): void {
  page(ctx, { title: 'Sign in' }, html`<h1>Sign in</h1>
    <form method="post" action="/dashboard/sign-in" class="sign-in">
      <label for="key">REST API key of your app</label>
      <input id="key" name="key" type="password" autocomplete="off" required maxlength="${MAX_KEY_CHARS}" ${invalidWhen('key', !!error)}>
      ${errorList('key', error ? [error] : [])}
      <button type="submit">Sign in</button>
    </form>
    <p class="note">A key of scope read can see sends and reports; composing and cancelling need a key of scope send.</p>`, status);
}

/**
 * The session's key draws the same buckets as its REST calls: `read` for pages, `send` for a cancel
 * (compose draws its own). A 429 is rendered by dashboardErrors (a page, or the REST body for .json).
 */
function drawBuckets(deps: ApiDeps): Middleware {
  return async function dashboardBuckets(ctx, next) {
    const s = session(ctx);
    const bucket = ctx.method === 'GET' ? 'read' : ctx.path.endsWith('/cancel') ? 'send' : undefined;
    if (deps.rateLimiter && bucket) await deps.rateLimiter.drawAuthenticated({ bucket, keyId: s.keyId, appId: s.appId, ip: ctx.state.ip });
    await next();
  };
}

export function mountDashboard(router: Router, deps: ApiDeps, keys: KeyCache): void {
  const signedIn = [requireSession(deps.pool), drawBuckets(deps)];
  const secure = (ctx: Context) => overTls(ctx, deps.trustProxyHops);

  router.use('/dashboard', async (ctx, next) => {
    ctx.set('Content-Security-Policy', CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('Cache-Control', 'no-store');
    // A browser names the page a POST came from: one from another origin is refused, sign-in
    // included (which has no session, so no CSRF token, yet). `Origin: null` (a sandboxed frame,
    // a data: page, a redirect chain) names no page of ours either. Changes also need the token.
    const origin = ctx.get('Origin');
    if (ctx.method === 'POST' && origin && (origin === 'null' || safeHost(origin) !== ctx.host)) {
      ctx.status = 403;
      ctx.type = 'text/plain';
      ctx.body = 'Cross-origin form refused.';
      return;
    }
    await next();
  }, dashboardErrors());
  // This pattern also matches '/dashboard/' (the router ignores a trailing slash), hence the check.
  router.get('/dashboard', (ctx, next) => (ctx.path === '/dashboard' ? ctx.redirect('/dashboard/') : next()));
  router.get('/dashboard/assets/:file', serveAsset);
  router.get('/dashboard/sign-in', (ctx) => signInPage(ctx));

  router.post('/dashboard/sign-in', form, async (ctx) => {
    const key = String(bodyField(ctx.request.body, 'key') ?? '').trim();
    // Every attempt, right or wrong, draws the address's anonymous bucket: a valid key cannot mint
    // sessions in a loop, and a wrong one costs what a 401 costs.
    try {
      await deps.rateLimiter?.drawAnonymous(ctx.state.ip);
    } catch (error) {
      if (error instanceof HeraldError) return signInPage(ctx, error.messages[0], 429);
      throw error;
    }
    const identity = key && key.length <= MAX_KEY_CHARS ? await keys.lookup(key) : null;
    if (!identity || identity.revoked || !ipAllowed(identity, ctx.state.ip)) {
      return signInPage(ctx, 'This key is not valid here: check it, and that it may be used from this address.', 401);
    }
    setSessionCookie(ctx, await createSession(deps.pool, identity.keyId), secure(ctx));
    ctx.redirect('/dashboard/');
  });

  router.post('/dashboard/sign-out', ...signedIn, ...changes(), async (ctx) => {
    await deleteSession(deps.pool, ctx.cookies.get(COOKIE));
    setSessionCookie(ctx, null, secure(ctx));
    ctx.redirect('/dashboard/sign-in');
  });

  mountOverview(router, deps, signedIn);
  mountSends(router, deps, signedIn, changes());
  mountAudience(router, deps, signedIn);
  mountSegments(router, deps, signedIn, changes());
  mountUsers(router, deps, signedIn, changes());
  mountTemplates(router, deps, signedIn, changes());
  mountEvents(router, deps, signedIn);
  mountSettings(router, deps, signedIn, changes());

  router.get('/dashboard/compose/estimate.json', ...signedIn, (ctx) => composeEstimate(ctx, deps));
  router.get('/dashboard/compose', ...signedIn, (ctx) => composeSend(ctx, deps, 'show'));
  router.post('/dashboard/compose', ...signedIn, ...changes(), (ctx) => composeSend(ctx, deps, 'post'));
}

