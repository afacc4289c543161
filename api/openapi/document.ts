// The OpenAPI 3.1 document of Herald's REST interface, served at GET /api/v1/openapi.json. Linted
// in `make test` (test/dashboard/openapi.test.ts) and checked against real answers: the api test
// suites' client validates every answer it gets against it (test/support/openapi-check.ts).
// Its paths are the declared calls' (api/calls/), so it says what the router serves.
import { COMPONENTS, INFO, TAGS } from './components.js';
import { pathsOf } from './call-paths.js';
import { REST_CALLS } from '../calls/index.js';

export const openApiDocument = {
  openapi: '3.1.0',
  info: INFO,
  servers: [{ url: '/api/v1' }],
  security: [{ restApiKey: [] }],
  tags: TAGS,
  paths: pathsOf(REST_CALLS),
  components: COMPONENTS,
};
