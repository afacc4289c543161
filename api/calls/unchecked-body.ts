// The body of a call declared `bodyUnchecked` (./call.ts): a JSON object (the mount's body reader
// refuses anything else, 400) whose rules the handler checks itself with the one checker, at the
// step of its contract's order where they belong (a send's validate step; after finding its app,
// its install…). Typed as what it is until then: an object of unknown fields.
import Type from 'typebox';
import { ref } from '../openapi/answers.js';

export type JsonObject = Record<string, unknown>;

/** An unchecked body, documented as an object. */
export const UNCHECKED_BODY = Type.Unsafe<JsonObject>({ type: 'object' });

/** An unchecked body documented as the component `name`. */
export const componentBody = (name: string) => Type.Unsafe<JsonObject>(ref(name));
