// The template calls' components of the OpenAPI document (api/routes/templates.ts declares the
// calls): the template view of the send body's one schema (its TEMPLATE_FIELDS), which the send's
// rules check, and the answers. What differs from OneSignal: docs/api.md "Templates".
import { TEMPLATE_FIELDS } from '../../core/templates/template-schema.js';
import { TEMPLATE_LIMITS } from '../../core/templates/template-limits.js';
import { sendBodyFields } from './path-helpers.js';

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
