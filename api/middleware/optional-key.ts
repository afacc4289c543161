// OneSignal's v1 device calls are made two ways (issue 38 point 1): by a backend with its REST key,
// and by an app with only its App ID (the iOS SDK before 5). A call with an Authorization header
// runs the key's chain (a wrong key is a 401, never a fall back to app-facing rules); a call
// without one goes on with no `ctx.state.auth`, and the route applies the app-facing rules.
import type { Middleware } from 'koa';

export function optionalKey(keyed: Middleware[]): Middleware {
  return async function optionalKeyMiddleware(ctx, next) {
    if (!ctx.get('Authorization')) return next();
    const run = (i: number): Promise<void> => (i === keyed.length ? next() : Promise.resolve(keyed[i](ctx, () => run(i + 1))));
    return run(0);
  };
}
