// getOutcomes (GET /apps/{app_id}/outcomes; issue 30 point 4): the app's click outcome over
// OneSignal's time ranges (core/send/click-outcomes.ts). Any key of the app; the path's app_id
// must be the key's (403, as the user and segment calls). It counts over the app's opens, as an
// estimate counts over its installs, so it draws the `estimate` bucket (docs/decisions.md "Issue 30
// — history, outcomes").
import type { Context } from 'koa';
import { AuthError } from '../../core/errors.js';
import { clickOutcomes, parseOutcomeQuery } from '../../core/send/click-outcomes.js';
import type { ApiDeps } from '../shared/deps.js';
import { drawBuckets } from './notifications.js';

export function outcomesRoute(deps: ApiDeps) {
  const now = deps.now ?? (() => new Date());
  return async function outcomesHandler(ctx: Context): Promise<void> {
    if (String(ctx.params.app_id).toLowerCase() !== ctx.state.auth.appId) throw new AuthError('wrong_app');
    const query = parseOutcomeQuery(ctx.query);
    await drawBuckets(deps, ctx, { bucket: 'estimate' });
    ctx.body = await clickOutcomes(deps.pool, ctx.state.auth.appId, query, now());
  };
}
