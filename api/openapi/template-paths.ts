// The template calls in the OpenAPI document (issue 30 point 1; api/routes/templates.ts): the
// official client's paths, the template view of the send body's one schema (its TEMPLATE_FIELDS),
// and the answers. What differs from OneSignal: docs/api.md "Templates".
import { TEMPLATE_FIELDS } from '../../core/templates/template-schema.js';
import { TEMPLATE_LIMITS } from '../../core/templates/template-limits.js';
import { changeHelpers, pathParam, sendBodyFields, type Helpers } from './path-helpers.js';

/** The send body's schema with the fields a template carries, its name and app_id. */
function templateRequest(description: string, required: string[]) {
  const schema = sendBodyFields(description, ['app_id', ...TEMPLATE_FIELDS]);
  const name = { type: 'string', minLength: 1, maxLength: TEMPLATE_LIMITS.name, description: "The template's name." };
  return { ...schema, properties: { ...schema.properties, name }, required };
}

export const TEMPLATE_SCHEMAS = {
  TemplateRequest: templateRequest("OneSignal's CreateTemplateRequest: a name and a send's content (the fields below), checked by the send's own rules. Push only.", ['app_id', 'name', 'contents']),
  TemplateUpdate: templateRequest("OneSignal's UpdateTemplateRequest: the fields given replace the template's (null removes one); the result is checked whole.", []),
  Template: {
    type: 'object',
    required: ['id', 'name', 'created_at', 'updated_at', 'channel', 'content'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      created_at: { type: 'string', description: 'RFC 3339.' },
      updated_at: { type: 'string', description: 'RFC 3339.' },
      channel: { type: 'string', enum: ['push'] },
      content: { type: 'object', description: 'The fields of a send the template carries, as written.' },
    },
  },
  TemplatePage: {
    type: 'object',
    required: ['templates', 'total_count', 'offset', 'limit'],
    properties: {
      templates: { type: 'array', items: { $ref: '#/components/schemas/Template' } },
      total_count: { type: 'integer', minimum: 0 },
      offset: { type: 'integer', minimum: 0 },
      limit: { type: 'integer', minimum: 1, maximum: TEMPLATE_LIMITS.page_max },
    },
  },
};

const APP_QUERY = { name: 'app_id', in: 'query', required: false, description: "The key's app (another app's id: 403).", schema: { type: 'string' } };
const TEMPLATE_ID = pathParam('template_id', "The template's id (another app's: 404).");
const query = (name: string, description: string, schema: unknown) => ({ name, in: 'query', required: false, description, schema });

export function templatePaths(helpers: Helpers) {
  const { ok, r, AUTHENTICATED } = helpers;
  const { body, changing } = changeHelpers(helpers);
  return {
    '/templates': {
      post: {
        operationId: 'createTemplate',
        tags: ['templates'],
        summary: 'Make a template (needs a key of scope send; the users bucket).',
        requestBody: body('TemplateRequest'),
        responses: { '200': ok('Made.', 'Template'), ...changing },
      },
      get: {
        operationId: 'viewTemplates',
        tags: ['templates'],
        summary: "The app's templates, oldest first (the read bucket).",
        parameters: [
          APP_QUERY,
          query('limit', `Page size, 1 to ${TEMPLATE_LIMITS.page_max} (default ${TEMPLATE_LIMITS.page_max}).`, { type: 'integer', minimum: 1, maximum: TEMPLATE_LIMITS.page_max }),
          query('offset', 'Templates to skip.', { type: 'integer', minimum: 0, maximum: 1000000 }),
          query('channel', 'push (email and sms find none).', { type: 'string' }),
        ],
        responses: { '200': ok('A page of templates.', 'TemplatePage'), '422': r('Invalid'), ...AUTHENTICATED },
      },
    },
    '/templates/{template_id}': {
      get: {
        operationId: 'viewTemplate',
        tags: ['templates'],
        summary: 'One template (the read bucket).',
        parameters: [TEMPLATE_ID, APP_QUERY],
        responses: { '200': ok('The template.', 'Template'), '404': r('NotFound'), ...AUTHENTICATED },
      },
      patch: {
        operationId: 'updateTemplate',
        tags: ['templates'],
        summary: 'Change a template (needs a key of scope send; the users bucket). Sends already accepted keep what they were sent with.',
        parameters: [TEMPLATE_ID, APP_QUERY],
        requestBody: body('TemplateUpdate'),
        responses: { '200': ok('Changed.', 'Template'), '404': r('NotFound'), ...changing },
      },
      delete: {
        operationId: 'deleteTemplate',
        tags: ['templates'],
        summary: 'Delete a template (needs a key of scope send; the users bucket).',
        parameters: [TEMPLATE_ID, APP_QUERY],
        responses: { '200': ok('Deleted.', 'Success'), '404': r('NotFound'), ...AUTHENTICATED },
      },
    },
    '/templates/{template_id}/copy_to_app': {
      post: {
        operationId: 'copyTemplateToApp',
        tags: ['templates'],
        security: [],
        summary: 'Refused: it needs an Organization API key, which Herald does not have (a 403 saying so, whatever key is sent).',
        parameters: [TEMPLATE_ID, APP_QUERY],
        responses: { '403': r('Forbidden'), '429': r('TooManyRequests'), '500': r('ServerError'), '503': r('Unavailable') },
      },
    },
  };
}
