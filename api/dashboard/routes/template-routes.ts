// The templates pages' routes (issue 30 point 6): GETs only, every query the session's app's, so
// another app's template id is "Not found" like an unknown one. A page number past the last shows
// none; one that is not a number from 1 to the most pages an app's templates can fill is refused.
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { getApp } from '../../../core/apps/app-store.js';
import { HeraldError, NotFoundError } from '../../../core/errors.js';
import { TEMPLATE_LIMITS } from '../../../core/templates/template-limits.js';
import { findTemplate, listTemplates } from '../../../core/templates/template-store.js';
import type { ApiDeps } from '../../shared/deps.js';
import { templatePage, templatesPage, TEMPLATES_PAGE } from '../pages/templates.js';
import { layoutOf, page, session } from '../respond.js';
import { templateMessage } from '../template-message.js';

/** The last page an app's templates can fill. */
export const MAX_TEMPLATE_PAGE = Math.ceil(TEMPLATE_LIMITS.per_app / TEMPLATES_PAGE);

export function mountTemplates(router: Router, deps: ApiDeps, signedIn: Middleware[]): void {
  router.get('/dashboard/templates', ...signedIn, async (ctx) => {
    const raw = ctx.query.page ?? '1';
    const n = typeof raw === 'string' && /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
    if (!(n >= 1 && n <= MAX_TEMPLATE_PAGE)) throw new HeraldError(400, `page must be a whole number from 1 to ${MAX_TEMPLATE_PAGE}.`);
    const from = (n - 1) * TEMPLATES_PAGE;
    const { total, templates } = await listTemplates(deps.pool, session(ctx).appId, from, TEMPLATES_PAGE);
    const next = from + templates.length < total && templates.length ? `page=${n + 1}` : undefined;
    page(ctx, layoutOf(ctx, 'Templates', 'templates'), templatesPage(templates, { total, from, next, later: n > 1 }, session(ctx)));
  });

  router.get('/dashboard/templates/:id', ...signedIn, async (ctx) => {
    const s = session(ctx);
    const [template, app] = await Promise.all([findTemplate(deps.pool, s.appId, String(ctx.params.id)), getApp(deps.pool, s.appId)]);
    if (!template || !app) throw new NotFoundError('No such template in this app.');
    page(ctx, layoutOf(ctx, `Template ${template.name}`, 'templates'), templatePage(template, templateMessage(app, template, deps.now?.() ?? new Date()), s));
  });
}
