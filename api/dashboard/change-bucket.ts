// What a change made in the dashboard draws before its work: the `users` bucket, as the REST calls
// that change users, segments and templates do (a key's 1,000 a second), so a page of forms cannot
// change faster than the API. Sends and cancels draw their own (the REST send's).
import type { Context } from 'koa';
import type { ApiDeps } from '../shared/deps.js';
import { session } from './respond.js';

export async function drawChangeBucket(deps: ApiDeps, ctx: Context): Promise<void> {
  const s = session(ctx);
  if (deps.rateLimiter) await deps.rateLimiter.drawAuthenticated({ bucket: 'users', keyId: s.keyId, appId: s.appId, ip: ctx.state.ip });
}
