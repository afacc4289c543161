// A query's values are text; a declaration's query schema says which are whole numbers
// (`Type.Integer`). Those are read as numbers before the one checker sees the query, so the schema
// keeps their range (`minimum`, `maximum`), the document shows them as integers and the handler
// receives numbers. Anything else (a sign, a fraction, spaces, a repeated parameter) stays text and
// fails the schema's type, with the field's sentence.
import type { TSchema } from 'typebox';

const WHOLE = /^\d{1,15}$/;

/** `query` with each integer parameter of `schema` written in digits read as its number. */
export function queryValues(schema: TSchema, query: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const values = { ...query };
  for (const [name, property] of Object.entries(properties)) {
    const value = values[name];
    if (property.type === 'integer' && typeof value === 'string' && WHOLE.test(value)) values[name] = Number(value);
  }
  return values;
}
