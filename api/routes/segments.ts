// OneSignal's segment calls with the app's REST API key (issue 27 point 3; docs/api.md
// "Segments"): createSegment, getSegments, getSegment, updateSegment, deleteSegment. Every segment
// is read through core/audience/segments.ts, the one list sends, estimates and the dashboard use;
// the App resource's and the built-in ones are listed read-only, and changing them is a 409.
// Order of checks as the user calls: key → body → the path's app → buckets → the body's rules →
// the work. Reads draw `read`; changes draw `users` and need a key of scope send.
import type { Context } from 'koa';
import { AuthError, ValidationError } from '../../core/errors.js';
import { getApp, type AppRecord } from '../../core/apps/app-store.js';
import { segmentsOf, type Segment } from '../../core/audience/segments.js';
import { measureAudience } from '../../core/audience/measure.js';
import { createSegment, deleteSegment, segmentById, updateSegment, writeSegments } from '../../core/segments/segment-store.js';
import { readSegmentBody } from '../../core/segments/segment-schema.js';
import { SEGMENT_LIMITS } from '../../core/segments/segment-limits.js';
import type { ApiDeps, ClassBucket } from '../shared/deps.js';
import { drawBuckets } from './notifications.js';

/** The key's app, named by the path (403 for another app's id, as the user calls and a send's app_id). */
async function keyApp(deps: ApiDeps, ctx: Context, bucket: ClassBucket): Promise<string> {
  const appId = String(ctx.params.app_id).toLowerCase();
  if (appId !== ctx.state.auth.appId) throw new AuthError('wrong_app');
  await drawBuckets(deps, ctx, { bucket });
  return appId;
}

async function appOf(deps: ApiDeps, appId: string): Promise<AppRecord> {
  const app = await getApp(deps.pool, appId);
  if (!app || app.disabled) throw new AuthError('revoked');
  return app;
}

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

/** A query's whole number in [min, max] (422 naming it), or the default when absent. */
export function queryNumber(ctx: Context, name: string, min: number, max: number, fallback: number): number {
  const raw = ctx.query[name];
  if (raw === undefined) return fallback;
  const n = typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= min && n <= max)) throw new ValidationError({ field: name, message: `${name} must be a whole number from ${min} to ${max}.` });
  return n;
}

export function createSegmentRoute(deps: ApiDeps) {
  return async function createSegmentHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    const body = readSegmentBody('create', ctx.request.body);
    const id = await writeSegments(deps.pool, appId, (db, app) => createSegment(db, app, { id: body.id, name: body.name, filters: body.filters!, groups: body.groups! }));
    ctx.status = 201;
    ctx.body = { success: true, id };
  };
}

export function getSegmentsRoute(deps: ApiDeps) {
  return async function getSegmentsHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'read');
    const offset = queryNumber(ctx, 'offset', 0, 1_000_000, 0);
    const limit = queryNumber(ctx, 'limit', 1, SEGMENT_LIMITS.page_max, SEGMENT_LIMITS.page_max);
    const app = await appOf(deps, appId);
    const all = segmentsOf(app);
    ctx.body = { total_count: all.length, offset, limit, segments: all.slice(offset, offset + limit).map((s) => segmentData(app, s)) };
  };
}

export function getSegmentRoute(deps: ApiDeps) {
  return async function getSegmentHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'read');
    const app = await appOf(deps, appId);
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
  };
}

export function updateSegmentRoute(deps: ApiDeps) {
  return async function updateSegmentHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    const body = readSegmentBody('update', ctx.request.body);
    const id = await writeSegments(deps.pool, appId, async (db, app) => {
      const s = segmentById(app, String(ctx.params.segment_id));
      await updateSegment(db, app, s, body);
      return s.id;
    });
    ctx.body = { success: true, id };
  };
}

export function deleteSegmentRoute(deps: ApiDeps) {
  return async function deleteSegmentHandler(ctx: Context): Promise<void> {
    const appId = await keyApp(deps, ctx, 'users');
    await writeSegments(deps.pool, appId, (db, app) => deleteSegment(db, app, segmentById(app, String(ctx.params.segment_id))));
    ctx.body = { success: true };
  };
}
