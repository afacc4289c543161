// The answers a lost caller gets (issue 38 point 2): `GET /` leads to the dashboard; a method the
// path does not take is a 405 with the {"errors": [...]} body every refusal has (and its Allow
// header); a path that is a REST call once /api/v1 is put in front says so, rather than a bare
// "Not found." a newcomer cannot tell from a wrong host. Wraps the router: it reads what the
// router answered and only fills an answer the router left empty.
import type { Middleware } from 'koa';
import type Router from '@koa/router';

/** The paths echoed in a sentence are cut: the caller wrote them, at any length. */
const ECHO_MAX = 200;
const DASHBOARD = '/dashboard/';

/** The REST path a prefix-less path would be: /notifications, /v1/notifications, /api/notifications. */
function withPrefix(path: string): string[] {
  const bare = path.startsWith('/v1/') ? path.slice(3) : path.startsWith('/api/') ? path.slice(4) : path;
  return [`/api/v1${bare}`];
}

export function clearWords(router: Router): Middleware {
  return async function clearWordsMiddleware(ctx, next) {
    if (ctx.path === '/' && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.redirect(DASHBOARD);
      return;
    }
    await next();
    const shown = ctx.path.slice(0, ECHO_MAX);
    if (ctx.status === 405 && !ctx.body) {
      ctx.status = 405;
      ctx.body = { errors: [`${ctx.method} is not a method of ${shown}: it takes ${ctx.response.get('Allow') || 'none'}.`] };
      return;
    }
    if (ctx.status !== 404 || ctx.body !== undefined || ctx.path.startsWith('/api/v1/') || ctx.path.startsWith('/dashboard')) return;
    const rest = withPrefix(ctx.path).find((candidate) => router.match(candidate, ctx.method).path.some((layer) => layer.methods.length > 0));
    if (rest !== undefined) {
      ctx.status = 404;
      ctx.body = { errors: [`${shown} lacks the /api/v1 prefix: Herald's REST calls are under /api/v1 (set your client's base address to https://<your Herald host>/api/v1; this call is ${rest.slice(0, ECHO_MAX + 7)}).`] };
    }
  };
}
