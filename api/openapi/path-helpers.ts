// What the path modules of the OpenAPI document (every *-paths.ts beside this file) share: the
// document's response helpers (document.ts passes them in), a path parameter, the app id every
// per-app call takes, a JSON request body and the answers of a call that changes something.

import { openApiSendRequest } from '../../core/validation/schema-views.js';

/** The send body's one schema, as the send documents it, with only `fields` (a call that takes part of a send's body). */
export function sendBodyFields(description: string, fields: readonly string[]): { properties: Record<string, unknown> } & Record<string, unknown> {
  const send = openApiSendRequest(description) as { properties: Record<string, unknown> };
  const kept = new Set(fields);
  return { ...send, properties: Object.fromEntries(Object.entries(send.properties).filter(([field]) => kept.has(field))) };
}

/** The document's helpers (document.ts). */
export interface Helpers {
  ok: (description: string, schema: string) => unknown;
  r: (name: string) => unknown;
  json: (schema: unknown) => unknown;
  ref: (name: string) => unknown;
  AUTHENTICATED: Record<string, unknown>;
}

export const pathParam = (name: string, description: string) => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });

/** `{app_id}` in a per-app path: the key's own app (another app's id is a 403). */
export const APP_PARAM = pathParam('app_id', "The key's app (another app's id: 403).");

/** A required JSON body, the refusals of a call that takes one, and a 409 described per call. */
export function changeHelpers({ r, json, ref, AUTHENTICATED }: Helpers) {
  return {
    body: (schema: string) => ({ required: true, content: json(ref(schema)) }),
    changing: { '400': r('BadRequest'), '413': r('TooLarge'), '415': r('UnsupportedMediaType'), '422': r('Invalid'), ...AUTHENTICATED },
    conflict: (what: string) => ({ description: what, content: json(ref('Errors')) }),
  };
}
