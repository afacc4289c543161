// Segments made and changed in the dashboard (issue 27 points 3 and 7), as through the API: the
// same body rules (core/segments/segment-schema.ts), the same writes under the same lock
// (core/segments/segment-store.ts writeSegments), the same bucket (`users`, drawn by each POST;
// pages draw `read` as every page) and a key of scope send. A segment's page shows any segment of
// the app; a built-in or App resource one read-only, saying where it comes from. Another app's
// segment id is "Not found" like an unknown one.
import { mayUse } from '../../../core/apps/keys.js';
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { getApp, type AppRecord } from '../../../core/apps/app-store.js';
import { ForbiddenError, HeraldError, NotFoundError, ValidationError, type FieldIssue } from '../../../core/errors.js';
import { createSegment, deleteSegment, NO_SEGMENT, segmentById, updateSegment, writeSegments } from '../../../core/segments/segment-store.js';
import { readSegmentBody } from '../../../core/segments/segment-schema.js';
import { checkUntrustedJson } from '../../../core/validation/untrusted-json.js';
import { isUuid } from '../../../core/formats/uuid.js';
import type { ApiDeps } from '../../shared/deps.js';
import { audienceSizes } from '../audience-sizes.js';
import { newSegmentPage, segmentPage, type SegmentForm } from '../pages/segment-edit.js';
import { layoutOf, page, session } from '../respond.js';
import { drawChangeBucket } from '../change-bucket.js';
import { bodyField } from '../../shared/body-field.js';

const NEEDS_SEND_SCOPE = 'Making or changing a segment needs a key of scope send.';

/** The form's name and filters (text as typed). */
function formOf(ctx: Context): SegmentForm {
  const b = (ctx.request.body ?? {}) as Record<string, unknown>;
  return { name: typeof b.name === 'string' ? b.name : '', filters: typeof b.filters === 'string' ? b.filters : '' };
}

/** The form as the API's body, through the API's rules (a 422 naming the field). */
function bodyOf(form: SegmentForm, which: 'create' | 'update') {
  let filters: unknown;
  try {
    filters = JSON.parse(form.filters);
  } catch {
    throw new ValidationError({ field: 'filters', message: 'filters is not JSON: a list such as [{"field": "tag", "key": "plan", "relation": "=", "value": "gold"}].' });
  }
  return readSegmentBody(which, checkUntrustedJson({ name: form.name, filters }));
}

const issuesOf = (error: HeraldError): FieldIssue[] =>
  error instanceof ValidationError ? error.issues : error.messages.map((message) => ({ field: '', message }));

export function mountSegments(router: Router, deps: ApiDeps, signedIn: Middleware[], changes: Middleware[]): void {
  const appOf = async (ctx: Context): Promise<AppRecord> => {
    const app = await getApp(deps.pool, session(ctx).appId);
    if (!app) throw new NotFoundError('No such app.');
    return app;
  };
  const idOf = (ctx: Context) => {
    const id = String(ctx.params.id);
    if (!isUuid(id)) throw new NotFoundError(NO_SEGMENT);
    return id;
  };
  /** A change's checks before its work: a send key, then the `users` bucket (as the API's writes). */
  const mayChange = async (ctx: Context) => {
    if (!mayUse(session(ctx).scope, 'send')) throw new ForbiddenError(NEEDS_SEND_SCOPE);
    await drawChangeBucket(deps, ctx);
  };
  const showSegment = async (ctx: Context, app: AppRecord, id: string, extra: { form?: SegmentForm; issues?: FieldIssue[]; deleteError?: string } = {}, status = 200) => {
    const s = session(ctx);
    const segment = segmentById(app, id);
    const size = segment.shadowed ? 0 : (await audienceSizes(deps.pool).get(app, { kind: 'segment', segment: segment.name }, deps.now?.() ?? new Date())).estimate;
    page(ctx, layoutOf(ctx, `Segment ${segment.name}`, 'audience'), segmentPage(segment, { appName: app.name, size, canChange: mayUse(s.scope, 'send'), csrf: s.csrf, ...extra }), status);
  };

  router.get('/dashboard/audience/segments/new', ...signedIn, async (ctx) => {
    if (!mayUse(session(ctx).scope, 'send')) throw new ForbiddenError(NEEDS_SEND_SCOPE);
    page(ctx, layoutOf(ctx, 'New segment', 'audience'), newSegmentPage(session(ctx).csrf, { name: '', filters: '' }));
  });

  router.post('/dashboard/audience/segments/new', ...signedIn, ...changes, async (ctx) => {
    await mayChange(ctx);
    const form = formOf(ctx);
    try {
      const body = bodyOf(form, 'create');
      const id = await writeSegments(deps.pool, session(ctx).appId, (db, app) => createSegment(db, app, { name: body.name, filters: body.filters!, groups: body.groups! }));
      ctx.redirect(`/dashboard/audience/segments/${id}`);
    } catch (error) {
      if (!(error instanceof HeraldError) || !error.expose || error.status === 429) throw error;
      page(ctx, layoutOf(ctx, 'New segment', 'audience'), newSegmentPage(session(ctx).csrf, form, issuesOf(error)), error.status);
    }
  });

  router.get('/dashboard/audience/segments/:id', ...signedIn, async (ctx) => showSegment(ctx, await appOf(ctx), idOf(ctx)));

  router.post('/dashboard/audience/segments/:id', ...signedIn, ...changes, async (ctx) => {
    await mayChange(ctx);
    const id = idOf(ctx);
    const form = formOf(ctx);
    try {
      const body = bodyOf(form, 'update');
      await writeSegments(deps.pool, session(ctx).appId, (db, app) => updateSegment(db, app, segmentById(app, id), body));
      ctx.redirect(`/dashboard/audience/segments/${id}`);
    } catch (error) {
      if (!(error instanceof HeraldError) || !error.expose || error.status === 404 || error.status === 429) throw error;
      await showSegment(ctx, await appOf(ctx), id, { form, issues: issuesOf(error) }, error.status);
    }
  });

  router.post('/dashboard/audience/segments/:id/delete', ...signedIn, ...changes, async (ctx) => {
    await mayChange(ctx);
    const id = idOf(ctx);
    if (bodyField(ctx.request.body, 'confirm') !== 'yes') {
      return showSegment(ctx, await appOf(ctx), id, { deleteError: 'Tick the box to delete this segment.' }, 422);
    }
    await writeSegments(deps.pool, session(ctx).appId, (db, app) => deleteSegment(db, app, segmentById(app, id)));
    ctx.redirect('/dashboard/audience/segments');
  });
}
