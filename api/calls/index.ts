// Every REST call Herald serves under /api/v1, one declaration each (./call.ts), gathered by
// group in the router's order (a literal path before a parameter one it would match:
// count-unsaved before {id}). The router mounts this list (api/server.ts) and the OpenAPI
// document is built from it (api/openapi/document.ts): adding a call is its declaration and a
// line in its group's list.
import type { Call } from './call.js';
import { SEND_CALLS } from './send-calls.js';
import { USER_CALLS } from './user-calls.js';
import { SDK_CALLS } from './sdk-calls.js';
import { RESOURCE_CALLS } from './resource-calls.js';
import { getAppCall } from '../routes/app-view.js';
import { NOT_SERVED_CALLS } from '../routes/not-served.js';

export const REST_CALLS: readonly Call[] = [...SEND_CALLS, ...USER_CALLS, ...SDK_CALLS, ...RESOURCE_CALLS, getAppCall, ...NOT_SERVED_CALLS];
