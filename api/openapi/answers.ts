// The OpenAPI document's shared words: references, a JSON content, the rate headers every drawn
// call answers with, and the refusals each kind of call can give. The document (document.ts) and
// the calls' declarations (api/calls/) both use them, so an answer is worded once.

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: unknown) => ({ 'application/json': { schema } });
export const header = (description: string) => ({ description, schema: { type: 'string' } });

export const RATE_HEADERS = {
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

/** A 2xx answer with the rate headers and a body of the component `schema` (or a schema). */
export const ok = (description: string, schema: string | object) => ({ description, headers: RATE_HEADERS, content: json(typeof schema === 'string' ? ref(schema) : schema) });
/** A reference to one of the document's shared responses. */
export const r = (name: string) => ({ $ref: `#/components/responses/${name}` });
/** The answers every authenticated call can give. */
export const AUTHENTICATED = { '401': r('Unauthorized'), '403': r('Forbidden'), '429': r('TooManyRequests'), '500': r('ServerError'), '503': r('Unavailable') };
/** The answers of an app-facing call with a body. */
export const SDK = { '400': r('BadRequest'), '413': r('TooLarge'), '415': r('UnsupportedMediaType'), '422': r('Invalid'), '429': r('TooManyRequests'), '500': r('ServerError'), '503': r('Unavailable') };
/** The refusals of a call that takes a body, beside the authenticated ones. */
export const CHANGING = { '400': r('BadRequest'), '413': r('TooLarge'), '415': r('UnsupportedMediaType'), '422': r('Invalid'), ...AUTHENTICATED };
/** SDK calls of an app with identity verification on (api/routes/identity.ts). */
export const IDENTITY = { description: 'Identity verification is on and external_id_auth_hash is missing or wrong.', content: json(ref('Errors')) };
