// Every REST call Herald serves under /api/v1, one declaration each (api/calls/call.ts) beside its
// handler, gathered by group in the router's order (a literal path before a parameter one it would
// match: count-unsaved before {id}). The router mounts this list and the OpenAPI document is built
// from it, with the document's own call (api/document.ts): adding a call is its declaration and a
// line in its group's list.
import type { Call } from '../calls/call.js';
import { SEND_CALLS } from './send-calls.js';
import { USER_CALLS } from './user-calls.js';
import { SDK_CALLS } from './sdk-calls.js';
import { RESOURCE_CALLS } from './resource-calls.js';
import { getAppCall } from './app-view.js';
import { NOT_SERVED_CALLS } from './not-served.js';

export const REST_CALLS: readonly Call[] = [...SEND_CALLS, ...USER_CALLS, ...SDK_CALLS, ...RESOURCE_CALLS, getAppCall, ...NOT_SERVED_CALLS];
