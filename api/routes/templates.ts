// OneSignal's template calls with the app's REST API key (issue 30 point 1; docs/api.md
// "Templates"): createTemplate, viewTemplates, viewTemplate, updateTemplate, deleteTemplate, and
// copyTemplateToApp refused (it needs an organisation key, which Herald does not have), one
// declaration each (api/calls/call.ts). The app is named by the body (create) or ?app_id= (the
// others); another app's is a 403, as the segment calls answer, and another app's template id is
// not found (404). Reads draw `read`; changes draw `users` and need a key of scope send.
import { ForbiddenError, NotFoundError } from '../../core/errors.js';
import type { AppRecord } from '../../core/apps/app-store.js';
import { rulesApp } from '../../core/send/accept.js';
import { CREATE_TEMPLATE_BODY, TEMPLATE_SENTENCES, templateOf, UPDATE_TEMPLATE_BODY } from '../../core/templates/template-schema.js';
import { createTemplate, deleteTemplate, findTemplate, listTemplates, NO_TEMPLATE, updateTemplate, type Template } from '../../core/templates/template-store.js';
import { TEMPLATE_LIMITS } from '../../core/templates/template-limits.js';
import { declare } from '../calls/call.js';
import { AUTHENTICATED, CHANGING, json, r, ref } from '../openapi/answers.js';
import { pathParam } from '../openapi/path-helpers.js';
import type { ApiDeps } from '../shared/deps.js';
import { pageQuery } from '../shared/page-query.js';
import { keyAppRecord } from '../shared/key-app.js';

export const NO_ORGANISATION_KEY =
  'copyTemplateToApp needs an Organization API key, which Herald does not have: each key belongs to one app. Create the template in the other app with that app\'s key (createTemplate).';

/** OneSignal's TemplateResource. */
function resource(t: Template) {
  return { id: t.id, name: t.name, created_at: t.createdAt, updated_at: t.updatedAt, channel: 'push', content: t.content };
}

function rules(deps: ApiDeps, app: AppRecord) {
  return { app: rulesApp(app), now: deps.now?.() ?? new Date() };
}

const APP_QUERY = { name: 'app_id', in: 'query', required: false, description: "The key's app (another app's id: 403).", schema: { type: 'string' } };
const TEMPLATE_ID = pathParam('template_id', "The template's id (another app's: 404).");
const PAGE = pageQuery('Templates', TEMPLATE_LIMITS.page_max);
const body = (component: string) => ({ required: true, content: json(ref(component)) });

export const createTemplateCall = declare({
  operationId: 'createTemplate',
  method: 'post',
  path: '/templates',
  access: 'send-key',
  app: 'body',
  bucket: 'users',
  body: CREATE_TEMPLATE_BODY,
  sentences: TEMPLATE_SENTENCES,
  answers: { '200': { description: 'Made.', schema: 'Template' } },
  doc: {
    tags: ['templates'],
    summary: 'Make a template (needs a key of scope send; the users bucket).',
    // The document shows the send's fields a template carries; their rules are the send's own.
    requestBody: body('TemplateRequest'),
    responses: CHANGING,
  },
  handler: (deps) =>
    async function createTemplateHandler(ctx, input): Promise<void> {
      const app = await keyAppRecord(deps, ctx);
      const { content } = templateOf(input.body, rules(deps, app));
      ctx.body = resource(await createTemplate(deps.pool, app.id, { name: input.body.name, content }));
    },
});

export const viewTemplatesCall = declare({
  operationId: 'viewTemplates',
  method: 'get',
  path: '/templates',
  access: 'key',
  app: 'query',
  bucket: 'read',
  query: PAGE.schema,
  querySentences: PAGE.sentences,
  answers: { '200': { description: 'A page of templates.', schema: 'TemplatePage' } },
  doc: {
    tags: ['templates'],
    summary: "The app's templates, oldest first (the read bucket).",
    parameters: [APP_QUERY, { name: 'channel', in: 'query', required: false, description: 'push (email and sms find none).', schema: { type: 'string' } }],
    responses: { '422': r('Invalid'), ...AUTHENTICATED },
  },
  handler: (deps) =>
    async function viewTemplatesHandler(ctx, { query }): Promise<void> {
      const app = await keyAppRecord(deps, ctx);
      const offset = query.offset ?? 0;
      const limit = query.limit ?? TEMPLATE_LIMITS.page_max;
      // Herald keeps push templates only: asking for email or SMS ones finds none.
      const push = ctx.query.channel === undefined || ctx.query.channel === 'push';
      const page = push ? await listTemplates(deps.pool, app.id, offset, limit) : { total: 0, templates: [] };
      ctx.body = { total_count: page.total, offset, limit, templates: page.templates.map(resource) };
    },
});

export const viewTemplateCall = declare({
  operationId: 'viewTemplate',
  method: 'get',
  path: '/templates/{template_id}',
  access: 'key',
  app: 'query',
  bucket: 'read',
  answers: { '200': { description: 'The template.', schema: 'Template' } },
  doc: { tags: ['templates'], summary: 'One template (the read bucket).', parameters: [TEMPLATE_ID, APP_QUERY], responses: { '404': r('NotFound'), ...AUTHENTICATED } },
  handler: (deps) =>
    async function viewTemplateHandler(ctx): Promise<void> {
      const app = await keyAppRecord(deps, ctx);
      const found = await findTemplate(deps.pool, app.id, String(ctx.params.template_id));
      if (!found) throw new NotFoundError(NO_TEMPLATE);
      ctx.body = resource(found);
    },
});

export const updateTemplateCall = declare({
  operationId: 'updateTemplate',
  method: 'patch',
  path: '/templates/{template_id}',
  access: 'send-key',
  app: 'query',
  bucket: 'users',
  body: UPDATE_TEMPLATE_BODY,
  sentences: TEMPLATE_SENTENCES,
  answers: { '200': { description: 'Changed.', schema: 'Template' } },
  doc: {
    tags: ['templates'],
    summary: 'Change a template (needs a key of scope send; the users bucket). Sends already accepted keep what they were sent with.',
    parameters: [TEMPLATE_ID, APP_QUERY],
    requestBody: body('TemplateUpdate'),
    responses: { '404': r('NotFound'), ...CHANGING },
  },
  handler: (deps) =>
    async function updateTemplateHandler(ctx, input): Promise<void> {
      const app = await keyAppRecord(deps, ctx);
      const changed = await updateTemplate(deps.pool, app.id, String(ctx.params.template_id), (current) => templateOf(input.body, rules(deps, app), current.content));
      ctx.body = resource(changed);
    },
});

export const deleteTemplateCall = declare({
  operationId: 'deleteTemplate',
  method: 'delete',
  path: '/templates/{template_id}',
  access: 'send-key',
  app: 'query',
  bucket: 'users',
  answers: { '200': { description: 'Deleted.', schema: 'Success' } },
  doc: {
    tags: ['templates'],
    summary: 'Delete a template (needs a key of scope send; the users bucket).',
    parameters: [TEMPLATE_ID, APP_QUERY],
    responses: { '404': r('NotFound'), ...AUTHENTICATED },
  },
  handler: (deps) =>
    async function deleteTemplateHandler(ctx): Promise<void> {
      const app = await keyAppRecord(deps, ctx);
      await deleteTemplate(deps.pool, app.id, String(ctx.params.template_id));
      ctx.body = { success: true };
    },
});

// The client sends an organisation key here, which Herald has none of: refused before any key
// check, whatever the Authorization header says. The refusal is not an AuthError, so it draws no
// bucket (server.ts mounted it behind limitAnonymous, which draws for AuthErrors only).
export const copyTemplateToAppCall = declare({
  operationId: 'copyTemplateToApp',
  method: 'post',
  path: '/templates/{template_id}/copy_to_app',
  access: 'public',
  answers: {},
  doc: {
    tags: ['templates'],
    summary: 'Refused: it needs an Organization API key, which Herald does not have (a 403 saying so, whatever key is sent).',
    parameters: [TEMPLATE_ID, APP_QUERY],
    responses: { '403': r('Forbidden'), '500': r('ServerError'), '503': r('Unavailable') },
  },
  handler: () =>
    async function copyTemplateToAppHandler(): Promise<void> {
      throw new ForbiddenError(NO_ORGANISATION_KEY);
    },
});
