// getApp (GET /apps/{app_id}) for the key's own app (issue 38 point 2; docs/api.md "Calls Herald
// does not serve"): the official client sends its organizationApiKey here, and an app's REST key
// given as that reads its own app. Another app's id is a 403 saying so: Herald has no key that
// reads several apps. The counts are a live count of the app's installs: the `estimate` bucket,
// as an estimate's count.
import type { Context } from 'koa';
import { ForbiddenError, NotFoundError } from '../../core/errors.js';
import { readAppView } from '../../core/apps/app-view.js';
import type { ApiDeps } from '../shared/deps.js';
import { drawBuckets } from './notifications.js';

export const OTHER_APP =
  "getApp reads the key's own app only: Herald has no Organization API key, so call it with that app's REST API key (as the client's organizationApiKey); `herald apps list` shows every app.";

export function getAppRoute(deps: ApiDeps) {
  return async function getAppHandler(ctx: Context): Promise<void> {
    if (String(ctx.params.app_id).toLowerCase() !== ctx.state.auth.appId) throw new ForbiddenError(OTHER_APP);
    await drawBuckets(deps, ctx, { bucket: 'estimate' });
    const view = await readAppView(deps.pool, ctx.state.auth.appId);
    if (!view) throw new NotFoundError('No such app.');
    ctx.body = view;
  };
}
