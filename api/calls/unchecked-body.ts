// The body of a call whose rules run inside its handler in the order the contract fixes (a send's
// validate step: `bodyUnchecked`): documented by its component of the OpenAPI document, and typed
// for the handler as the JSON object the body reader (api/middleware/json-body.ts) let through.
import Type from 'typebox';
import { ref } from '../openapi/answers.js';

export type JsonObject = Record<string, unknown>;

/** A body documented as the component `name` and handed to the handler as a JSON object. */
export const componentBody = (name: string) => Type.Unsafe<JsonObject>(ref(name));
