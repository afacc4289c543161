// OneSignal's template calls with the app's REST API key (issue 30 point 1; docs/api.md
// "Templates"): createTemplate, viewTemplates, viewTemplate, updateTemplate, deleteTemplate, and
// copyTemplateToApp refused (it needs an organisation key, which Herald does not have). The app is
// named by the body (create) or ?app_id= (the others); another app's is a 403, as the segment calls
// answer, and another app's template id is not found (404). Reads draw `read`; changes draw `users`
// and need a key of scope send.
import type { Context } from 'koa';
import { AuthError, ForbiddenError, NotFoundError, ValidationError } from '../../core/errors.js';
import { getApp, type AppRecord } from '../../core/apps/app-store.js';
import { rulesApp } from '../../core/send/accept.js';
import { APP_ID_REQUIRED } from '../../core/validation/send-schema.js';
import { readTemplateBody, type TemplateBody } from '../../core/templates/template-schema.js';
import { createTemplate, deleteTemplate, findTemplate, listTemplates, NO_TEMPLATE, updateTemplate, type Template } from '../../core/templates/template-store.js';
import { TEMPLATE_LIMITS } from '../../core/templates/template-limits.js';
import type { ApiDeps, ClassBucket } from '../shared/deps.js';
import { drawBuckets } from './notifications.js';
import { queryNumber } from './segments.js';

export const NO_ORGANISATION_KEY =
  'copyTemplateToApp needs an Organization API key, which Herald does not have: each key belongs to one app. Create the template in the other app with that app\'s key (createTemplate).';

/** The key's app, named by `named` (403 for another app's id); the buckets; the app's row. */
async function keyApp(deps: ApiDeps, ctx: Context, named: unknown, bucket: ClassBucket): Promise<AppRecord> {
  const appId: string = ctx.state.auth.appId;
  if (named !== undefined && String(named).toLowerCase() !== appId) throw new AuthError('wrong_app');
  await drawBuckets(deps, ctx, { bucket });
  const app = await getApp(deps.pool, appId);
  if (!app || app.disabled) throw new AuthError('revoked');
  return app;
}

/** OneSignal's TemplateResource. */
function resource(t: Template) {
  return { id: t.id, name: t.name, created_at: t.createdAt, updated_at: t.updatedAt, channel: 'push', content: t.content };
}

function rules(deps: ApiDeps, app: AppRecord) {
  return { app: rulesApp(app), now: deps.now?.() ?? new Date() };
}

export function createTemplateRoute(deps: ApiDeps) {
  return async function createTemplateHandler(ctx: Context): Promise<void> {
    const body = ctx.request.body as Record<string, unknown>;
    const app = await keyApp(deps, ctx, body.app_id ?? undefined, 'users');
    if (body.app_id === undefined || body.app_id === null) throw new ValidationError({ field: 'app_id', message: APP_ID_REQUIRED });
    const read = readTemplateBody('create', body, rules(deps, app)) as Required<TemplateBody>;
    ctx.body = resource(await createTemplate(deps.pool, app.id, read));
  };
}

export function viewTemplatesRoute(deps: ApiDeps) {
  return async function viewTemplatesHandler(ctx: Context): Promise<void> {
    const app = await keyApp(deps, ctx, ctx.query.app_id, 'read');
    const offset = queryNumber(ctx, 'offset', 0, 1_000_000, 0);
    const limit = queryNumber(ctx, 'limit', 1, TEMPLATE_LIMITS.page_max, TEMPLATE_LIMITS.page_max);
    // Herald keeps push templates only: asking for email or SMS ones finds none.
    const push = ctx.query.channel === undefined || ctx.query.channel === 'push';
    const page = push ? await listTemplates(deps.pool, app.id, offset, limit) : { total: 0, templates: [] };
    ctx.body = { total_count: page.total, offset, limit, templates: page.templates.map(resource) };
  };
}

export function viewTemplateRoute(deps: ApiDeps) {
  return async function viewTemplateHandler(ctx: Context): Promise<void> {
    const app = await keyApp(deps, ctx, ctx.query.app_id, 'read');
    const found = await findTemplate(deps.pool, app.id, String(ctx.params.template_id));
    if (!found) throw new NotFoundError(NO_TEMPLATE);
    ctx.body = resource(found);
  };
}

export function updateTemplateRoute(deps: ApiDeps) {
  return async function updateTemplateHandler(ctx: Context): Promise<void> {
    const app = await keyApp(deps, ctx, ctx.query.app_id, 'users');
    const changed = await updateTemplate(deps.pool, app.id, String(ctx.params.template_id), (current) =>
      readTemplateBody('update', ctx.request.body, rules(deps, app), current.content),
    );
    ctx.body = resource(changed);
  };
}

export function deleteTemplateRoute(deps: ApiDeps) {
  return async function deleteTemplateHandler(ctx: Context): Promise<void> {
    const app = await keyApp(deps, ctx, ctx.query.app_id, 'users');
    await deleteTemplate(deps.pool, app.id, String(ctx.params.template_id));
    ctx.body = { success: true };
  };
}

export function copyTemplateToAppRoute() {
  return async function copyTemplateToAppHandler(): Promise<void> {
    throw new ForbiddenError(NO_ORGANISATION_KEY);
  };
}
