// The OpenAPI 3.1 document of Herald's REST interface, served at GET /api/v1/openapi.json by its
// own call, declared here beside it. Linted in `make test` (test/dashboard/openapi.test.ts) and
// checked against real answers: the api test suites' client validates every answer it gets
// against it (test/support/openapi-check.ts). Its paths are the declared calls' (api/routes/calls.ts),
// so it says what the router serves; its components are the shared ones (api/openapi/) and the
// bodies the route modules declare. Assembled here, above api/routes and api/openapi, so neither
// imports the other's way back.
import { declare, type Call } from './calls/call.js';
import { pathsOf } from './calls/paths.js';
import { COMPONENTS, INFO, TAGS } from './openapi/components.js';
import { json } from './openapi/answers.js';
import { REST_CALLS } from './routes/calls.js';
import { EXPORT_SCHEMAS } from './routes/exports.js';
import { PUSH_TYPE_TOKEN_BODY } from './routes/push-type-tokens.js';
import { START_TOKEN_BODY, UPDATE_TOKEN_BODY } from './routes/live-activity-tokens.js';
import { OPEN_BODY } from './routes/subscriptions.js';
import { ESTIMATE_SCHEMAS } from './routes/notification-estimate.js';
import { HISTORY_SCHEMAS } from './routes/notification-history.js';
import { OUTCOME_SCHEMAS } from './routes/outcomes.js';

/** The bodies the route modules declare, as components the calls refer to by name. */
const ROUTE_SCHEMAS = {
  LiveActivityUpdateToken: UPDATE_TOKEN_BODY,
  PushTypeToken: PUSH_TYPE_TOKEN_BODY,
  LiveActivityStartToken: START_TOKEN_BODY,
  Open: OPEN_BODY,
  ...EXPORT_SCHEMAS,
  ...ESTIMATE_SCHEMAS,
  ...HISTORY_SCHEMAS,
  ...OUTCOME_SCHEMAS,
};

/** GET /openapi.json: this document, without a key. */
const openApiCall = declare({
  operationId: 'getOpenApi',
  method: 'get',
  path: '/openapi.json',
  access: 'public',
  answers: {},
  doc: { tags: [], security: [], summary: 'This document.', responses: { '200': { description: 'OpenAPI 3.1', content: json({ type: 'object' }) } } },
  handler: () =>
    async function openApiHandler(ctx): Promise<void> {
      ctx.body = openApiDocument;
    },
});

/** Every call the api serves under /api/v1: the REST calls and the document's own. */
export const API_CALLS: readonly Call[] = [openApiCall, ...REST_CALLS];

export const openApiDocument = {
  openapi: '3.1.0',
  info: INFO,
  servers: [{ url: '/api/v1' }],
  security: [{ restApiKey: [] }],
  tags: TAGS,
  paths: pathsOf(API_CALLS),
  components: { ...COMPONENTS, schemas: { ...COMPONENTS.schemas, ...ROUTE_SCHEMAS } },
};
