// exportSubscriptions in the OpenAPI document (issue 27; api/routes/exports.ts): the official
// client's path and body (the validator's own schema, core/exports/export-schema.ts), and the
// one-time download it answers. What differs from OneSignal: docs/api.md "Export".
import { EXPORT_REQUEST_SCHEMA } from '../../core/exports/export-schema.js';
import { LINK_TTL_MS } from '../../core/exports/export-links.js';

import type { Helpers } from './path-helpers.js';

export const EXPORT_SCHEMAS = {
  ExportRequest: { ...EXPORT_REQUEST_SCHEMA, description: "OneSignal's ExportSubscriptionsRequestBody: all three fields optional." },
  ExportLink: {
    type: 'object',
    required: ['csv_file_url'],
    properties: { csv_file_url: { type: 'string', description: `A one-time link to the gzip CSV, valid ${LINK_TTL_MS / 60_000} minutes.` } },
  },
};

export function exportPaths({ ok, r, json, ref, AUTHENTICATED }: Helpers) {
  return {
    '/players/csv_export': {
      post: {
        operationId: 'exportSubscriptions',
        tags: ['subscriptions'],
        summary: "A one-time link to the gzip CSV of the app's installs (needs a key of scope send; the export bucket).",
        parameters: [{ name: 'app_id', in: 'query', required: true, description: "The key's app (another app's id: 403).", schema: { type: 'string' } }],
        requestBody: { required: false, content: json(ref('ExportRequest')) },
        responses: { '200': ok('The link: the file is made when it is fetched.', 'ExportLink'), '400': r('BadRequest'), '413': r('TooLarge'), '415': r('UnsupportedMediaType'), '422': r('Invalid'), ...AUTHENTICATED },
      },
    },
    '/exports/{file}': {
      get: {
        operationId: 'downloadExport',
        tags: ['subscriptions'],
        security: [],
        summary: 'The export, streamed as it is read: one download per link, within its time.',
        parameters: [{ name: 'file', in: 'path', required: true, description: 'The link\'s token and ".csv.gz".', schema: { type: 'string' } }],
        responses: {
          '200': { description: 'The gzip CSV (OneSignal\'s columns Herald keeps).', content: { 'application/gzip': { schema: { type: 'string', contentEncoding: 'binary' } } } },
          '404': r('NotFound'),
          '410': { description: 'The link expired, or its segment was deleted.', content: json(ref('Errors')) },
          '429': r('TooManyRequests'),
          '500': r('ServerError'),
          '503': r('Unavailable'),
        },
      },
      head: {
        operationId: 'checkExport',
        tags: ['subscriptions'],
        security: [],
        summary: 'Whether the link would serve, without using it up.',
        parameters: [{ name: 'file', in: 'path', required: true, description: 'The link\'s token and ".csv.gz".', schema: { type: 'string' } }],
        responses: { '200': { description: 'It would serve.' }, '404': { description: 'No such link, or used.' }, '410': { description: 'Expired.' }, '429': r('TooManyRequests') },
      },
    },
  };
}
