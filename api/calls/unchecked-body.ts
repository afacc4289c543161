// The body of a call declared `bodyUnchecked` (./call.ts): a JSON object (the mount's body reader
// refuses anything else, 400) whose rules the handler checks itself with the one checker, at the
// step of its contract's order where they belong (after finding its app, its install…). Typed as
// what it is until then: an object of unknown fields.
import Type from 'typebox';

export const UNCHECKED_BODY = Type.Unsafe<Record<string, unknown>>({ type: 'object' });
