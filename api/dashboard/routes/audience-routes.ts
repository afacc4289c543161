// The audience pages' routes: GETs only, so nothing here changes an install; every query is the
// session's app's, so another app's install id is "Not found" like an unknown one.
import { mayUse } from '../../../core/apps/keys.js';
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { getApp } from '../../../core/apps/app-store.js';
import { NotFoundError } from '../../../core/errors.js';
import { describeSegment, segmentsOf } from '../../../core/audience/segments.js';
import { SENDS_CHECKED, sendsOfInstall } from '../../../core/audience/member.js';
import { readNotification, type NotificationReport } from '../../../core/send/report.js';
import { ANY, FindError, findInstalls, parseFind } from '../../../core/subscriptions/find.js';
import { installPlatform } from '../../../core/subscriptions/browse-installs.js';
import { readInstall } from '../../../core/subscriptions/subscription-store.js';
import type { ApiDeps } from '../../shared/deps.js';
import { audienceSizes, SIZE_KEPT_MS } from '../audience-sizes.js';
import { findPage, installPage, segmentsPage, type SegmentSize } from '../pages/audience.js';
import { layoutOf, page, session } from '../respond.js';

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? '';

export function mountAudience(router: Router, deps: ApiDeps, signedIn: Middleware[]): void {
  router.get('/dashboard/audience', ...signedIn, async (ctx) => {
    const by = one(ctx.query.by) || ANY;
    const q = one(ctx.query.q).slice(0, 1000);
    const opts = layoutOf(ctx, 'Audience', 'audience');
    if (!q) return page(ctx, opts, findPage(by, '', undefined));
    let lookups;
    try {
      lookups = parseFind(by, q);
    } catch (error) {
      if (error instanceof FindError) return page(ctx, opts, findPage(by, q, undefined, error.message), 400);
      throw error;
    }
    page(ctx, opts, findPage(by, q, { lookups, found: await findInstalls(deps.pool, session(ctx).appId, lookups) }));
  });

  router.get('/dashboard/audience/installs/:id', ...signedIn, async (ctx) => {
    const s = session(ctx);
    const install = await readInstall(deps.pool, s.appId, String(ctx.params.id).toLowerCase());
    const app = install && (await getApp(deps.pool, s.appId));
    if (!install || !app) throw new NotFoundError('No such install in this app.');
    const ids = await sendsOfInstall(deps.pool, app, install);
    const sends = (await Promise.all(ids.slice(0, 10).map((id) => readNotification(deps.pool, s.appId, id)))).filter((n): n is NotificationReport => !!n);
    const platform = (await installPlatform(deps.pool, s.appId, install.id)) ?? 'ios';
    page(ctx, layoutOf(ctx, `Install ${install.id}`, 'audience'), installPage({ ...install, platform }, sends, SENDS_CHECKED));
  });

  router.get('/dashboard/audience/segments', ...signedIn, async (ctx) => {
    const app = await getApp(deps.pool, session(ctx).appId);
    if (!app) throw new NotFoundError('No such app.');
    const segments: SegmentSize[] = [];
    const sizes = audienceSizes(deps.pool);
    const now = deps.now?.() ?? new Date();
    // One count at a time: a page of sizes must not take every pool connection at once. Each is
    // kept 30 s (audience-sizes.ts), so reloading the page does not count them all again.
    // Every source through the one list (core/audience/segments.ts); a shadowed API segment reaches no one.
    for (const segment of segmentsOf(app).filter((seg) => !seg.shadowed)) {
      const { name } = segment;
      const { estimate } = await sizes.get(app, { kind: 'segment', segment: name }, now);
      segments.push({ id: segment.id, name, builtIn: segment.source === 'built_in', conditions: app.segments.find((seg) => seg.name === name)?.conditions ?? [], who: segment.source === 'api' ? describeSegment(segment) : undefined, size: estimate });
    }
    page(ctx, layoutOf(ctx, 'Segments', 'audience'), segmentsPage(segments, SIZE_KEPT_MS / 1000, mayUse(session(ctx).scope, 'send')));
  });
}
