// OneSignal's segment calls with the app's REST API key (issue 27 point 3; docs/api.md
// "Segments"): createSegment, getSegments, getSegment, updateSegment, deleteSegment, one
// declaration each (api/calls/call.ts). Every segment is read through core/audience/segments.ts,
// the one list sends, estimates and the dashboard use; the App resource's and the built-in ones are
// listed read-only, and changing them is a 409. The app is named by the path (another app's: 403).
// Reads draw `read`; changes draw `users` and need a key of scope send.
import type { AppRecord } from '../../core/apps/app-store.js';
import { segmentsOf, type Segment } from '../../core/audience/segments.js';
import { measureAudience } from '../../core/audience/measure.js';
import { createSegment, deleteSegment, segmentById, updateSegment, writeSegments } from '../../core/segments/segment-store.js';
import { CREATE_SEGMENT_BODY, SEGMENT_SENTENCES, segmentWrite, UPDATE_SEGMENT_BODY } from '../../core/segments/segment-schema.js';
import { SEGMENT_LIMITS } from '../../core/segments/segment-limits.js';
import { declare } from '../calls/call.js';
import { AUTHENTICATED, CHANGING, json, r, ref } from '../openapi/answers.js';
import { APP_PARAM, pathParam } from '../openapi/path-helpers.js';
import { pageQuery } from '../shared/page-query.js';
import { keyAppRecord } from '../shared/key-app.js';

/** Where a segment comes from, beside the client's own fields (extra fields the client ignores). */
function origin(app: AppRecord, s: Segment) {
  return {
    read_only: s.source !== 'api',
    herald_source: s.source,
    ...(s.source === 'app_resource' ? { app_resource: app.name } : {}),
    ...(s.shadowed ? { shadowed: true } : {}),
  };
}

/** OneSignal's SegmentData. */
function segmentData(app: AppRecord, s: Segment) {
  return {
    id: s.id,
    name: s.name,
    app_id: app.id,
    ...(s.createdAt ? { created_at: s.createdAt, updated_at: s.updatedAt } : {}),
    is_active: !s.shadowed,
    ...origin(app, s),
  };
}

const SEGMENT_PARAM = pathParam('segment_id', "The segment's id, as getSegments lists it (another app's: 404).");
const conflict = (what: string) => ({ description: what, content: json(ref('Errors')) });
const PAGE = pageQuery('Segments', SEGMENT_LIMITS.page_max);

export const createSegmentCall = declare({
  operationId: 'createSegment',
  method: 'post',
  path: '/apps/{app_id}/segments',
  access: 'send-key',
  app: 'path',
  bucket: 'users',
  body: CREATE_SEGMENT_BODY,
  sentences: SEGMENT_SENTENCES,
  answers: { '201': { description: 'Made.', schema: 'SegmentWritten' } },
  doc: {
    tags: ['segments'],
    summary: `A segment of the filters language (needs a key of scope send; the users bucket; at most ${SEGMENT_LIMITS.per_app} per app).`,
    parameters: [APP_PARAM],
    // The document's form names each filters entry's fields (the send's FilterEntry).
    requestBody: { required: true, content: json(ref('SegmentCreate')) },
    responses: { '409': conflict('The name is built in, the App resource\'s, or another segment\'s; or the id is taken.'), ...CHANGING },
  },
  handler: (deps) =>
    async function createSegmentHandler(ctx, { body }): Promise<void> {
      const read = segmentWrite(body);
      const id = await writeSegments(deps.pool, ctx.state.auth.appId, (db, app) => createSegment(db, app, { id: read.id, name: read.name, filters: read.filters!, groups: read.groups! }));
      ctx.status = 201;
      ctx.body = { success: true, id };
    },
});

export const getSegmentsCall = declare({
  operationId: 'getSegments',
  method: 'get',
  path: '/apps/{app_id}/segments',
  access: 'key',
  app: 'path',
  bucket: 'read',
  query: PAGE.schema,
  querySentences: PAGE.sentences,
  answers: { '200': { description: 'A page of segments.', schema: 'SegmentList' } },
  doc: {
    tags: ['segments'],
    summary: 'Every segment of the app, built-in, App resource and API ones, saying where each comes from (the read bucket).',
    parameters: [APP_PARAM],
    responses: { '422': r('Invalid'), ...AUTHENTICATED },
  },
  handler: (deps) =>
    async function getSegmentsHandler(ctx, { query }): Promise<void> {
      const offset = query.offset ?? 0;
      const limit = query.limit ?? SEGMENT_LIMITS.page_max;
      const app = await keyAppRecord(deps, ctx);
      const all = segmentsOf(app);
      ctx.body = { total_count: all.length, offset, limit, segments: all.slice(offset, offset + limit).map((s) => segmentData(app, s)) };
    },
});

export const getSegmentCall = declare({
  operationId: 'getSegment',
  method: 'get',
  path: '/apps/{app_id}/segments/{segment_id}',
  access: 'key',
  app: 'path',
  bucket: 'read',
  answers: { '200': { description: 'The segment.', schema: 'SegmentOne' } },
  doc: {
    tags: ['segments'],
    summary: 'One segment with its filters and size (the read bucket).',
    parameters: [APP_PARAM, SEGMENT_PARAM, { name: 'include-segment-detail', in: 'query', required: false, description: 'Accepted; the detail is always given.', schema: { type: 'boolean' } }],
    responses: { '404': r('NotFound'), ...AUTHENTICATED },
  },
  handler: (deps) =>
    async function getSegmentHandler(ctx): Promise<void> {
      const app = await keyAppRecord(deps, ctx);
      const s = segmentById(app, String(ctx.params.segment_id));
      // Counted as a send to it would be (core/audience/measure.ts, through the one lookup); a
      // shadowed segment reaches no one, its name being the App resource's.
      const count = s.shadowed ? 0 : (await measureAudience(deps.pool, app, { kind: 'segment', segment: s.name })).estimate;
      ctx.body = {
        subscriber_count: count,
        payload: {
          id: s.id,
          name: s.name,
          source: s.source === 'built_in' ? 'default' : 'custom',
          filters: s.filters,
          ...(s.createdAt ? { created_at: Math.floor(Date.parse(s.createdAt) / 1000) } : {}),
          ...origin(app, s),
        },
      };
    },
});

export const updateSegmentCall = declare({
  operationId: 'updateSegment',
  method: 'patch',
  path: '/apps/{app_id}/segments/{segment_id}',
  access: 'send-key',
  app: 'path',
  bucket: 'users',
  body: UPDATE_SEGMENT_BODY,
  sentences: SEGMENT_SENTENCES,
  answers: { '200': { description: 'Changed.', schema: 'SegmentWritten' } },
  doc: {
    tags: ['segments'],
    summary: 'Rename an API segment and, when given, replace its filters (the users bucket).',
    parameters: [APP_PARAM, SEGMENT_PARAM],
    requestBody: { required: true, content: json(ref('SegmentUpdate')) },
    responses: { '404': r('NotFound'), '409': conflict('A built-in or App resource segment (read-only here), or a name taken.'), ...CHANGING },
  },
  handler: (deps) =>
    async function updateSegmentHandler(ctx, { body }): Promise<void> {
      const read = segmentWrite(body);
      const id = await writeSegments(deps.pool, ctx.state.auth.appId, async (db, app) => {
        const s = segmentById(app, String(ctx.params.segment_id));
        await updateSegment(db, app, s, read);
        return s.id;
      });
      ctx.body = { success: true, id };
    },
});

export const deleteSegmentCall = declare({
  operationId: 'deleteSegment',
  method: 'delete',
  path: '/apps/{app_id}/segments/{segment_id}',
  access: 'send-key',
  app: 'path',
  bucket: 'users',
  answers: { '200': { description: 'Deleted.', schema: 'SegmentDeleted' } },
  doc: {
    tags: ['segments'],
    summary: 'Delete an API segment; a send naming it afterwards is a 422 (the users bucket).',
    parameters: [APP_PARAM, SEGMENT_PARAM],
    responses: { '409': conflict('A built-in or App resource segment: read-only here.'), '404': r('NotFound'), ...AUTHENTICATED },
  },
  handler: (deps) =>
    async function deleteSegmentHandler(ctx): Promise<void> {
      await writeSegments(deps.pool, ctx.state.auth.appId, (db, app) => deleteSegment(db, app, segmentById(app, String(ctx.params.segment_id))));
      ctx.body = { success: true };
    },
});
