// The OpenAPI 3.1 document of Herald's REST interface, served at GET /api/v1/openapi.json. Linted
// in `make test` (test/dashboard/openapi.test.ts) and checked against real answers: the api test
// suites' client validates every answer it gets against it (test/support/openapi-check.ts).
import { COMPONENTS, INFO, TAGS } from './components.js';
import { userPaths } from './user-paths.js';
import { mergePaths, pathsOf } from './call-paths.js';
import { REST_CALLS } from '../calls/index.js';
import { AUTHENTICATED, json, ok, r, ref } from './answers.js';

export const openApiDocument = {
  openapi: '3.1.0',
  info: INFO,
  servers: [{ url: '/api/v1' }],
  security: [{ restApiKey: [] }],
  tags: TAGS,
  // The declared calls' paths (api/calls/), and those still written here.
  paths: mergePaths(pathsOf(REST_CALLS), {
    '/apps/{app_id}/subscriptions/{id}': {
      delete: {
        operationId: 'deleteSubscription',
        tags: ['users'],
        summary: 'Erase one install for good, in the request: its token, Live Activity tokens, opens and its id in list sends (needs a key of scope send; the users bucket). Its user stays.',
        parameters: [{ name: 'app_id', in: 'path', required: true, schema: { type: 'string' } }, { name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '202': ok('Erased.', 'UserErased'), '404': r('NotFound'), ...AUTHENTICATED },
      },
    },
    ...userPaths({ ok, r, json, ref, AUTHENTICATED }),
  }),
  components: COMPONENTS,
};
