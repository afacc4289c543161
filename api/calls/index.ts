// Every REST call Herald serves under /api/v1, one declaration each (./call.ts), in the router's
// order (a literal path before a parameter one it would match: count-unsaved before {id}). The
// router mounts this list (api/server.ts) and the OpenAPI document is built from it
// (api/openapi/document.ts): adding a call is its declaration and a line here.
import type { Call } from './call.js';
import { getAppCall } from '../routes/app-view.js';
import { NOT_SERVED_CALLS } from '../routes/not-served.js';

export const REST_CALLS: readonly Call[] = [getAppCall, ...NOT_SERVED_CALLS];
