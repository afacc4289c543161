// A keyed read of one install (any scope, the `read` bucket): what the SDK registered, whether it
// is subscribed and why not, its gateway and last registration. The app comes from the key; a
// path naming another app finds nothing.
import type { Context } from 'koa';
import { NotFoundError } from '../../core/errors.js';
import { readSubscription } from '../../core/subscriptions/subscription-store.js';
import type { ApiDeps } from '../shared/deps.js';
import { drawBuckets } from './notifications.js';
import { isUuid } from '../../core/formats/uuid.js';


export function readSubscriptionRoute(deps: ApiDeps) {
  return async function readSubscriptionHandler(ctx: Context): Promise<void> {
    await drawBuckets(deps, ctx, { bucket: 'read' });
    const appId = String(ctx.params.app_id).toLowerCase();
    const id = String(ctx.params.id);
    if (appId !== ctx.state.auth.appId) throw new NotFoundError('No such app.');
    const found = isUuid(id) ? await readSubscription(deps.pool, appId, id.toLowerCase()) : undefined;
    if (!found) throw new NotFoundError('No such subscription.');
    ctx.body = found;
  };
}
