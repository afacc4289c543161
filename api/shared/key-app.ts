// The key's app, read for a call's work after the mount checked the app it names: the key cache
// refuses a disabled app's keys, but for up to its lifetime a key read before the app was disabled
// still passes, so the row says so too (401, as the key itself).
import type { Context } from 'koa';
import { AuthError } from '../../core/errors.js';
import { getApp, type AppRecord } from '../../core/apps/app-store.js';
import type { ApiDeps } from './deps.js';

export async function keyAppRecord(deps: Pick<ApiDeps, 'pool'>, ctx: Context): Promise<AppRecord> {
  const app = await getApp(deps.pool, ctx.state.auth.appId);
  if (!app || app.disabled) throw new AuthError('revoked');
  return app;
}
