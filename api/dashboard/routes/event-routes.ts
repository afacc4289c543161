// The events page's route (issue 28 point 5): a GET, the session's app's destinations and events
// only. Older pages by a cursor (`before`: a record id; `skip`: events of that record already
// shown), bounded and checked: a malformed one is a 400 naming it.
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { HeraldError } from '../../../core/errors.js';
import { appDestinations, latestEvents, type EventCursor } from '../../../core/dashboard-reads/app-events.js';
import type { ApiDeps } from '../../shared/deps.js';
import { eventsPage } from '../pages/events.js';
import { layoutOf, page, session } from '../respond.js';

/** A record holds at most a chunk's events twice over (a refusal is failed + unsubscribed): far below this. */
const MAX_SKIP = 100_000;

function cursor(query: Record<string, unknown>): EventCursor | undefined {
  const { before, skip = '0' } = query;
  if (before === undefined) return undefined;
  const b = typeof before === 'string' && /^\d{1,15}$/.test(before) ? Number(before) : NaN;
  const s = typeof skip === 'string' && /^\d{1,6}$/.test(skip) ? Number(skip) : NaN;
  if (!(b >= 0)) throw new HeraldError(400, 'before must be a record id (a whole number).');
  if (!(s >= 0 && s <= MAX_SKIP)) throw new HeraldError(400, `skip must be a whole number from 0 to ${MAX_SKIP}.`);
  return { before: b, skip: s };
}

export function mountEvents(router: Router, deps: ApiDeps, signedIn: Middleware[]): void {
  router.get('/dashboard/events', ...signedIn, async (ctx) => {
    const appId = session(ctx).appId;
    const from = cursor(ctx.query);
    const [destinations, latest] = await Promise.all([appDestinations(deps.pool, appId), latestEvents(deps.pool, appId, from)]);
    const next = latest.next && new URLSearchParams({ before: String(latest.next.before), skip: String(latest.next.skip) }).toString();
    page(ctx, layoutOf(ctx, 'Events', 'events'), eventsPage(destinations, latest.events, { next, later: !!from }));
  });
}
