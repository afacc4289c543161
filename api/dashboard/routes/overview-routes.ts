// The overview's route (issue 40 point 1): the first page after signing in, a GET of the session's
// app's figures for the range asked (?range=24h|7d|30d; none: 7 d; anything else a 400 naming it).
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { HeraldError } from '../../../core/errors.js';
import { readOverview } from '../../../core/dashboard-reads/overview.js';
import { DEFAULT_RANGE, RANGE_NAMES, type RangeName } from '../../../core/dashboard-reads/overview-range.js';
import type { ApiDeps } from '../../shared/deps.js';
import { overviewPage } from '../pages/overview.js';
import { layoutOf, page, session } from '../respond.js';

export function mountOverview(router: Router, deps: ApiDeps, signedIn: Middleware[]): void {
  router.get('/dashboard/', ...signedIn, async (ctx) => {
    const asked = ctx.query.range ?? DEFAULT_RANGE;
    if (typeof asked !== 'string' || !RANGE_NAMES.includes(asked as RangeName)) throw new HeraldError(400, `range must be one of ${RANGE_NAMES.join(', ')}.`);
    const now = deps.now?.() ?? new Date();
    const overview = await readOverview(deps.pool, session(ctx).appId, asked as RangeName, now);
    page(ctx, layoutOf(ctx, 'Overview', 'overview'), overviewPage(overview, now));
  });
}
