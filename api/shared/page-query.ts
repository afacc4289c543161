// The `offset` and `limit` of a list call's page (getSegments, viewTemplates): whole numbers in
// their ranges, read by the one checker (api/calls/query-values.ts reads their digits), each
// refused with a 422 naming it and its range.
import Type, { type Static } from 'typebox';
import type { Sentences } from '../../core/validation/checker.js';

/** The furthest a page may start: a bound on the work of skipping, far above any list's length. */
export const MAX_OFFSET = 1_000_000;

/** The query schema of a page of `what`, at most `max` a page, and its sentences. */
export function pageQuery(what: string, max: number) {
  const schema = Type.Object({
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_OFFSET, description: `${what} to skip (default 0).` })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: max, description: `Page size, 1 to ${max} (default ${max}).` })),
  });
  const sentences: Sentences = {
    offset: `offset must be a whole number from 0 to ${MAX_OFFSET}.`,
    limit: `limit must be a whole number from 1 to ${max}.`,
  };
  return { schema, sentences };
}

export type PageQuery = Static<ReturnType<typeof pageQuery>['schema']>;
