// A keyed read of one install (any scope, the `read` bucket): what the SDK registered, whether it
// is subscribed and why not, its gateway and last registration. The app comes from the key; a
// path naming another app finds nothing (404, not the mount's 403: the call names no app to it).
import { NotFoundError } from '../../core/errors.js';
import { readSubscription } from '../../core/subscriptions/subscription-store.js';
import { isUuid } from '../../core/formats/uuid.js';
import { declare } from '../calls/call.js';
import { AUTHENTICATED, r } from '../openapi/answers.js';

export const readSubscriptionCall = declare({
  operationId: 'readSubscription',
  method: 'get',
  path: '/apps/{app_id}/subscriptions/{id}',
  access: 'key',
  bucket: 'read',
  answers: { '200': { description: 'The install.', schema: 'Subscription' } },
  doc: {
    tags: ['subscriptions'],
    summary: "One install of the key's app: whether it is subscribed and why not, its gateway and last registration.",
    responses: { '404': r('NotFound'), ...AUTHENTICATED },
  },
  handler: (deps) =>
    async function readSubscriptionHandler(ctx): Promise<void> {
      const appId = String(ctx.params.app_id).toLowerCase();
      const id = String(ctx.params.id);
      if (appId !== ctx.state.auth.appId) throw new NotFoundError('No such app.');
      const found = isUuid(id) ? await readSubscription(deps.pool, appId, id.toLowerCase()) : undefined;
      if (!found) throw new NotFoundError('No such subscription.');
      ctx.body = found;
    },
});
