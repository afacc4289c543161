// The templates pages' routes (issue 30 point 6, issue 40 point 3): the list and a template's page
// for any session; making, changing, copying and deleting one for a key that may send, each a POST
// with the CSRF token drawing the `users` bucket as the REST calls do, through the REST calls' own
// rules and writes (core/templates: readTemplateBody, createTemplate, updateTemplate,
// deleteTemplate), so their sentences are the same. Every query is the session's app's: another
// app's template id is "Not found" like an unknown one. A delete asks first (a GET page).
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { getApp, type AppRecord } from '../../../core/apps/app-store.js';
import { mayUse } from '../../../core/apps/keys.js';
import { ForbiddenError, HeraldError, NotFoundError, ValidationError } from '../../../core/errors.js';
import { rulesApp } from '../../../core/send/accept.js';
import { TEMPLATE_LIMITS } from '../../../core/templates/template-limits.js';
import { readTemplateBody, TEMPLATE_FIELDS, type TemplateBody } from '../../../core/templates/template-schema.js';
import { createTemplate, deleteTemplate, findTemplate, listTemplates, updateTemplate, type Template } from '../../../core/templates/template-store.js';
import { checkUntrustedJson } from '../../../core/validation/untrusted-json.js';
import type { ApiDeps } from '../../shared/deps.js';
import { bodyFromForm, formFromContent, TEMPLATE_SECTIONS } from '../form/forms.js';
import type { FormValues } from '../form/form-field.js';
import { deleteTemplatePage, templateFormPage } from '../pages/template-edit.js';
import { templatePage, templatesPage, TEMPLATES_PAGE } from '../pages/templates.js';
import { layoutOf, page, session } from '../respond.js';
import { drawChangeBucket } from '../change-bucket.js';
import { templateMessage } from '../template-message.js';

/** The last page an app's templates can fill. */
export const MAX_TEMPLATE_PAGE = Math.ceil(TEMPLATE_LIMITS.per_app / TEMPLATES_PAGE);
const NEEDS_SEND_SCOPE = 'Making or changing a template needs a key of scope send.';

const formValues = (ctx: Context): FormValues =>
  Object.fromEntries(Object.entries((ctx.request.body ?? {}) as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));

/**
 * The REST body the form stands for: its name and content. The form shows the whole template, so a
 * field it leaves empty is removed (null, as updateTemplate reads it), not kept.
 */
function templateBody(form: FormValues): Record<string, unknown> {
  const content = bodyFromForm(TEMPLATE_SECTIONS, form);
  const removed = Object.fromEntries(TEMPLATE_FIELDS.filter((f) => content[f] === undefined).map((f) => [f, null]));
  return checkUntrustedJson({ ...removed, ...content, name: form.template_name ?? '' });
}

/** A copy's name: the template's, marked, within the name's limit. */
const copyName = (name: string) => `${[...name].slice(0, TEMPLATE_LIMITS.name - ' (copy)'.length).join('')} (copy)`;

/** What every template route reads and checks, for one api's dependencies. */
function templateHelpers(deps: ApiDeps) {
  const now = () => deps.now?.() ?? new Date();
  const appOf = async (ctx: Context): Promise<AppRecord> => {
    const app = await getApp(deps.pool, session(ctx).appId);
    if (!app) throw new NotFoundError('No such app.');
    return app;
  };
  const templateOf = async (ctx: Context): Promise<Template> => {
    const t = await findTemplate(deps.pool, session(ctx).appId, String(ctx.params.id));
    if (!t) throw new NotFoundError('No such template in this app.');
    return t;
  };
  const maySend = (ctx: Context) => {
    if (!mayUse(session(ctx).scope, 'send')) throw new ForbiddenError(NEEDS_SEND_SCOPE);
  };
  /** A change: a key that may send, then the `users` bucket (the REST calls' own), before any work. */
  const mayChange = async (ctx: Context) => {
    maySend(ctx);
    await drawChangeBucket(deps, ctx);
  };
  /** The form, with what a refusal says: a 422's sentences by field, any other at the top. */
  const showForm = async (ctx: Context, form: FormValues, template?: Template, refused?: HeraldError) => {
    const title = template ? `Edit ${template.name}` : 'New template';
    const issues = refused instanceof ValidationError ? refused.issues : refused?.messages.map((message) => ({ field: '', message }));
    page(ctx, layoutOf(ctx, title, 'templates'), templateFormPage({ csrf: session(ctx).csrf, appName: (await appOf(ctx)).name, form, template, issues }), refused?.status ?? 200);
  };
  const listPage = async (ctx: Context, n: number, notice?: string) => {
    const from = (n - 1) * TEMPLATES_PAGE;
    const { total, templates } = await listTemplates(deps.pool, session(ctx).appId, from, TEMPLATES_PAGE);
    const next = from + templates.length < total && templates.length ? `page=${n + 1}` : undefined;
    page(ctx, layoutOf(ctx, 'Templates', 'templates'), templatesPage(templates, { total, from, next, later: n > 1 }, session(ctx), notice));
  };

  return { now, appOf, templateOf, maySend, mayChange, showForm, listPage };
}

export function mountTemplates(router: Router, deps: ApiDeps, signedIn: Middleware[], changes: Middleware[]): void {
  const { now, appOf, templateOf, listPage } = templateHelpers(deps);
  router.get('/dashboard/templates', ...signedIn, async (ctx) => {
    const raw = ctx.query.page ?? '1';
    const n = typeof raw === 'string' && /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
    if (!(n >= 1 && n <= MAX_TEMPLATE_PAGE)) throw new HeraldError(400, `page must be a whole number from 1 to ${MAX_TEMPLATE_PAGE}.`);
    await listPage(ctx, n);
  });

  // The editor's own paths (/new, /{id}/edit, …) come before /{id}, which would take `new` for an id.
  mountTemplateEditor(router, deps, signedIn, changes);
  router.get('/dashboard/templates/:id', ...signedIn, async (ctx) => {
    const [template, app] = await Promise.all([templateOf(ctx), appOf(ctx)]);
    page(ctx, layoutOf(ctx, template.name, 'templates'), templatePage(template, templateMessage(app, template, now()), session(ctx), app.name));
  });
}

/** The editor's routes: a key that may send; each change a POST with the CSRF token. */
function mountTemplateEditor(router: Router, deps: ApiDeps, signedIn: Middleware[], changes: Middleware[]): void {
  const { now, appOf, templateOf, maySend, mayChange, showForm, listPage } = templateHelpers(deps);
  router.get('/dashboard/templates/new', ...signedIn, async (ctx) => {
    maySend(ctx);
    await showForm(ctx, { lang_0: 'en' });
  });

  router.post('/dashboard/templates/new', ...signedIn, ...changes, async (ctx) => {
    await mayChange(ctx);
    const form = formValues(ctx);
    try {
      const app = await appOf(ctx);
      const read = readTemplateBody('create', templateBody(form), { app: rulesApp(app), now: now() }) as Required<TemplateBody>;
      const made = await createTemplate(deps.pool, app.id, read);
      ctx.redirect(`/dashboard/templates/${made.id}`);
    } catch (error) {
      if (!(error instanceof HeraldError) || !error.expose || error.status === 429) throw error;
      await showForm(ctx, form, undefined, error);
    }
  });

  router.get('/dashboard/templates/:id/edit', ...signedIn, async (ctx) => {
    maySend(ctx);
    const template = await templateOf(ctx);
    await showForm(ctx, { ...formFromContent(TEMPLATE_SECTIONS, template.content), template_name: template.name }, template);
  });

  router.post('/dashboard/templates/:id/edit', ...signedIn, ...changes, async (ctx) => {
    await mayChange(ctx);
    const template = await templateOf(ctx);
    const form = formValues(ctx);
    try {
      const app = await appOf(ctx);
      const body = templateBody(form);
      await updateTemplate(deps.pool, app.id, template.id, (current) => readTemplateBody('update', body, { app: rulesApp(app), now: now() }, current.content));
      ctx.redirect(`/dashboard/templates/${template.id}`);
    } catch (error) {
      if (!(error instanceof HeraldError) || !error.expose || error.status === 429 || error.status === 404) throw error;
      await showForm(ctx, form, template, error);
    }
  });

  // A copy is a new template of the same content (its name marked): the editor opens on it.
  router.post('/dashboard/templates/:id/copy', ...signedIn, ...changes, async (ctx) => {
    await mayChange(ctx);
    const template = await templateOf(ctx);
    const copy = await createTemplate(deps.pool, session(ctx).appId, { name: copyName(template.name), content: template.content });
    ctx.redirect(`/dashboard/templates/${copy.id}/edit`);
  });

  // A GET only asks: the change is the POST of its form.
  router.get('/dashboard/templates/:id/delete', ...signedIn, async (ctx) => {
    maySend(ctx);
    const template = await templateOf(ctx);
    page(ctx, layoutOf(ctx, `Delete template ${template.name}?`, 'templates'), deleteTemplatePage(session(ctx).csrf, template));
  });

  router.post('/dashboard/templates/:id/delete', ...signedIn, ...changes, async (ctx) => {
    await mayChange(ctx);
    const template = await templateOf(ctx);
    await deleteTemplate(deps.pool, session(ctx).appId, template.id);
    await listPage(ctx, 1, `Template ${template.name} was deleted.`);
  });
}
