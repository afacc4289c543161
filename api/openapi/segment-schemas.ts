// The segment calls' components of the OpenAPI document (api/routes/segments.ts declares the
// calls as @onesignal/node-onesignal 5.18.0 makes them): the request bodies are the checked
// schemas (core/segments/segment-schema.ts) with each filters entry shown as the send's
// FilterEntry, and the answers. What differs from OneSignal: docs/api.md "Segments".
import { CREATE_SEGMENT_BODY, UPDATE_SEGMENT_BODY } from '../../core/segments/segment-schema.js';
import { FilterEntry } from '../../core/audience/filter-schema.js';

const withEntries = <T extends { properties: Record<string, unknown> }>(schema: T) => ({
  ...schema,
  properties: { ...schema.properties, filters: { ...(schema.properties.filters as object), items: FilterEntry } },
});

const ORIGIN = {
  read_only: { type: 'boolean', description: 'True for built-in and App resource segments: only the API\'s may be changed here.' },
  herald_source: { enum: ['built_in', 'app_resource', 'api'], description: 'Where the segment comes from.' },
  app_resource: { type: 'string', description: 'The App resource defining it (herald_source app_resource).' },
  shadowed: { type: 'boolean', description: 'An API segment whose name the App resource now also defines: sends reach the App\'s.' },
};

export const SEGMENT_SCHEMAS = {
  SegmentCreate: withEntries(CREATE_SEGMENT_BODY),
  SegmentUpdate: withEntries(UPDATE_SEGMENT_BODY),
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
