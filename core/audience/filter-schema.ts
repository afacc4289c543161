// One entry of a send's `filters`, as the official client sends it. The send body's one schema
// (core/validation/send-body-schema.ts) takes it from here; so do the OpenAPI document and the
// Send CRD, which are generated from that schema.
import Type, { type Static } from 'typebox';

export const FilterEntry = Type.Object({
  field: Type.Optional(Type.Unsafe<'tag'>({ type: 'string', enum: ['tag'] })),
  key: Type.String({ minLength: 1, maxLength: 128 }),
  relation: Type.Unsafe<'=' | '!=' | '>' | '<' | 'exists' | 'not_exists'>({
    type: 'string',
    enum: ['=', '!=', '>', '<', 'exists', 'not_exists'],
  }),
  value: Type.Optional(Type.String({ maxLength: 128 })),
});

export type FilterEntry = Static<typeof FilterEntry>;
