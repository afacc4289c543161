// GET /api/v1/openapi.json: the OpenAPI document, without a key. The document is built from the
// calls' lists (api/openapi/document.ts imports api/calls/index.ts, which lists this call), so it
// is imported when first asked for, not when this module loads.
import { declare } from '../calls/call.js';
import { json } from '../openapi/answers.js';

export const openApiCall = declare({
  operationId: 'getOpenApi',
  method: 'get',
  path: '/openapi.json',
  access: 'public',
  answers: {},
  doc: { tags: [], security: [], summary: 'This document.', responses: { '200': { description: 'OpenAPI 3.1', content: json({ type: 'object' }) } } },
  handler: () =>
    async function openApiHandler(ctx): Promise<void> {
      const { openApiDocument } = await import('../openapi/document.js');
      ctx.body = openApiDocument;
    },
});
