// One field of a request body read before (or without) a schema: a form's hidden token, a
// confirmation box, the app a call names. An own property only (never one from a prototype), and
// undefined when the body is not an object: no cast of the body to a shape it may not have.

/** The body's own field `name`, or undefined. */
export function bodyField(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? Object.getOwnPropertyDescriptor(body, name)?.value : undefined;
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body as an object of unknown fields, or `{}` when there is none or it is no object. */
export function bodyObject(body: unknown): Readonly<Record<string, unknown>> {
  return isObject(body) ? body : {};
}
