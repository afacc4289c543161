// The segment calls in the OpenAPI document (issue 27 point 3; api/routes/segments.ts): the paths
// of @onesignal/node-onesignal 5.18.0, answered with its status codes; the request bodies are the
// validators' own schemas (core/segments/segment-schema.ts), each filters entry the send's
// FilterEntry. What differs from OneSignal: docs/api.md "Segments".
import { CREATE_SEGMENT_SCHEMA, SEGMENT_FILTER_ENTRY, UPDATE_SEGMENT_SCHEMA } from '../../core/segments/segment-schema.js';
import { SEGMENT_LIMITS } from '../../core/segments/segment-limits.js';

import { APP_PARAM as APP, changeHelpers, pathParam as param, type Helpers } from './path-helpers.js';

const withEntries = <T extends { properties: Record<string, unknown> }>(schema: T) => ({
  ...schema,
  properties: { ...schema.properties, filters: { ...(schema.properties.filters as object), items: SEGMENT_FILTER_ENTRY } },
});

const ORIGIN = {
  read_only: { type: 'boolean', description: 'True for built-in and App resource segments: only the API\'s may be changed here.' },
  herald_source: { enum: ['built_in', 'app_resource', 'api'], description: 'Where the segment comes from.' },
  app_resource: { type: 'string', description: 'The App resource defining it (herald_source app_resource).' },
  shadowed: { type: 'boolean', description: 'An API segment whose name the App resource now also defines: sends reach the App\'s.' },
};

export const SEGMENT_SCHEMAS = {
  SegmentCreate: withEntries(CREATE_SEGMENT_SCHEMA),
  SegmentUpdate: withEntries(UPDATE_SEGMENT_SCHEMA),
  SegmentWritten: { type: 'object', required: ['success'], properties: { success: { type: 'boolean' }, id: { type: 'string', format: 'uuid' } } },
  SegmentList: {
    type: 'object',
    required: ['total_count', 'offset', 'limit', 'segments'],
    properties: {
      total_count: { type: 'integer' },
      offset: { type: 'integer' },
      limit: { type: 'integer' },
      segments: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'name', 'app_id', 'is_active', 'read_only', 'herald_source'],
          properties: {
            id: { type: 'string', format: 'uuid' },
            name: { type: 'string' },
            app_id: { type: 'string', format: 'uuid' },
            created_at: { type: 'string', description: 'API segments only (ISO 8601).' },
            updated_at: { type: 'string' },
            is_active: { type: 'boolean' },
            ...ORIGIN,
          },
        },
      },
    },
  },
  SegmentOne: {
    type: 'object',
    required: ['subscriber_count', 'payload'],
    properties: {
      subscriber_count: { type: 'integer', description: 'Subscribed installs in it now, counted as a send to it would be.' },
      payload: {
        type: 'object',
        required: ['id', 'name', 'source', 'filters', 'read_only', 'herald_source'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          name: { type: 'string' },
          source: { enum: ['default', 'custom'] },
          filters: { type: 'array', items: { type: 'object' }, description: 'As given (API segments), or the App resource\'s conditions as tag filters; empty for built-in ones.' },
          created_at: { type: 'integer', description: 'Unix seconds (API segments).' },
          ...ORIGIN,
        },
      },
    },
  },
  SegmentDeleted: { type: 'object', required: ['success'], properties: { success: { const: true } } },
};

const SEGMENT = param('segment_id', "The segment's id, as getSegments lists it (another app's: 404).");

export function segmentPaths(helpers: Helpers) {
  const { ok, r, AUTHENTICATED } = helpers;
  const { body, changing, conflict } = changeHelpers(helpers);
  const query = (name: string, description: string) => ({ name, in: 'query', required: false, description, schema: { type: 'integer' } });
  return {
    '/apps/{app_id}/segments': {
      post: {
        operationId: 'createSegment',
        tags: ['segments'],
        summary: `A segment of the filters language (needs a key of scope send; the users bucket; at most ${SEGMENT_LIMITS.per_app} per app).`,
        parameters: [APP],
        requestBody: body('SegmentCreate'),
        responses: { '201': ok('Made.', 'SegmentWritten'), '409': conflict('The name is built in, the App resource\'s, or another segment\'s; or the id is taken.'), ...changing },
      },
      get: {
        operationId: 'getSegments',
        tags: ['segments'],
        summary: 'Every segment of the app, built-in, App resource and API ones, saying where each comes from (the read bucket).',
        parameters: [APP, query('offset', 'Segments skipped (default 0).'), query('limit', `Segments answered, 1 to ${SEGMENT_LIMITS.page_max} (default ${SEGMENT_LIMITS.page_max}).`)],
        responses: { '200': ok('A page of segments.', 'SegmentList'), '422': r('Invalid'), ...AUTHENTICATED },
      },
    },
    '/apps/{app_id}/segments/{segment_id}': {
      get: {
        operationId: 'getSegment',
        tags: ['segments'],
        summary: 'One segment with its filters and size (the read bucket).',
        parameters: [APP, SEGMENT, { name: 'include-segment-detail', in: 'query', required: false, description: 'Accepted; the detail is always given.', schema: { type: 'boolean' } }],
        responses: { '200': ok('The segment.', 'SegmentOne'), '404': r('NotFound'), ...AUTHENTICATED },
      },
      patch: {
        operationId: 'updateSegment',
        tags: ['segments'],
        summary: 'Rename an API segment and, when given, replace its filters (the users bucket).',
        parameters: [APP, SEGMENT],
        requestBody: body('SegmentUpdate'),
        responses: { '200': ok('Changed.', 'SegmentWritten'), '404': r('NotFound'), '409': conflict('A built-in or App resource segment (read-only here), or a name taken.'), ...changing },
      },
      delete: {
        operationId: 'deleteSegment',
        tags: ['segments'],
        summary: 'Delete an API segment; a send naming it afterwards is a 422 (the users bucket).',
        parameters: [APP, SEGMENT],
        responses: { '200': ok('Deleted.', 'SegmentDeleted'), '404': r('NotFound'), '409': conflict('A built-in or App resource segment: read-only here.'), ...AUTHENTICATED },
      },
    },
  };
}
