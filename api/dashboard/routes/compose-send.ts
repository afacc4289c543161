// The compose page's steps: show the form (a `send` key only); review it (the REST rules, the
// audience's size, the preview: the one confirmation); and send it through the REST call's own
// path: the same buckets, then acceptSend (402, validation, idempotency, the record), with source
// Dashboard. "Edit" goes back to the form with its values.
import { mayUse } from '../../../core/apps/keys.js';
import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import { getApp, type AppRecord } from '../../../core/apps/app-store.js';
import { ForbiddenError, HeraldError, NotFoundError, ValidationError, type FieldIssue } from '../../../core/errors.js';
import { acceptSend } from '../../../core/send/accept.js';
import { checkUntrustedJson } from '../../../core/validation/untrusted-json.js';
import { validateSendRequest } from '../../../core/validation/validate-send.js';
import type { ApiDeps, RateDraw } from '../../shared/deps.js';
import { classifySend } from '../../routes/notifications.js';
import { audienceSizes } from '../audience-sizes.js';
import { composePage, reviewPage, type ComposeForm, type ComposeTemplates } from '../pages/compose.js';
import { ESTIMATE_INPUTS } from '../form/audience-fields.js';
import { areaOf, bodyFromForm, COMPOSE_SECTIONS } from '../form/forms.js';
import { withTemplate } from '../../../core/templates/apply-template.js';
import { findTemplate, listTemplates } from '../../../core/templates/template-store.js';
import { TEMPLATE_LIMITS } from '../../../core/templates/template-limits.js';
import { formFromTemplate } from '../pages/compose-template.js';
import type { Queryable } from '../../../core/store/db.js';
import { when } from '../pages/format.js';
import type { SendRequest } from '../../../core/send-model/request.js';
import { layoutOf, page } from '../respond.js';
import { describeTarget } from '../send-audiences.js';
import type { DashboardSession } from '../session.js';
import { isUuid } from '../../../core/formats/uuid.js';
import { BUILT_IN_SEGMENTS } from '../../../core/formats/built-in-segments.js';
import { customSegmentNames } from '../../../core/audience/segments.js';

const COMPOSE_NEEDS_SEND_SCOPE = "Composing a message needs a key of scope send; this session's key may only read.";

/** What the form shows for a refusal: a 422's issues by field; any other error at the top of the form. */
const issuesOf = (error: HeraldError): FieldIssue[] =>
  error instanceof ValidationError ? error.issues : error.messages.map((message) => ({ field: '', message }));

/**
 * The send the form stands for, checked as the REST call checks its body (api/middleware/json-body.ts,
 * then its template filled in by the accept path's own rule, then validateSendRequest), and its
 * audience's size (possibly kept up to 30 s: audience-sizes.ts). `body` is what Send gives
 * acceptSend: the template named, not copied, as a REST caller's body.
 */
async function review(deps: ApiDeps, app: AppRecord, form: ComposeForm, now: Date) {
  // Text PostgreSQL cannot store (U+0000, a lone surrogate) is the REST body's 422 naming the
  // field; past Review it failed the send's statement, and every send grouped into it, as a 500.
  const body = checkUntrustedJson(bodyFromForm(COMPOSE_SECTIONS, form, { app_id: app.id }));
  const request = validateSendRequest({
    body: await withTemplate(deps.pool, app.id, body),
    app: { id: app.id, bundleId: app.bundleId, segmentNames: customSegmentNames(app) },
    now,
  });
  const { estimate } = await audienceSizes(deps.pool).get(app, request.target, now);
  const at = whenOf(request, form);
  const named = request.templateId ? await findTemplate(deps.pool, app.id, request.templateId) : undefined;
  const template = request.templateId ? { id: request.templateId, name: named?.name ?? null, version: named?.updatedAt } : undefined;
  return { body, request, template, estimate, audience: describeTarget(request.target), when: at };
}

/** When a send goes out, in words: now, a time (UTC, and the zone it was typed in), a clock time in each device's zone, or each device's last-active hour. */
function whenOf(request: SendRequest, form: ComposeForm): string {
  const zoned = form.send_tz && form.send_tz !== 'UTC' ? ` (${form.send_after.replace('T', ' ')} ${form.send_tz})` : '';
  if (request.timezoneDelivery) {
    const from = request.sendAfter ? `, from ${when(Math.floor(request.sendAfter.getTime() / 1000))}${zoned}` : '';
    return `${request.timezoneDelivery.timeOfDay} in each device's own time zone${from}`;
  }
  const at = request.sendAfter ? `${when(Math.floor(request.sendAfter.getTime() / 1000))}${zoned}` : undefined;
  if (request.lastActiveDelivery) return `At the hour each device was last active, within 24 hours ${at ? `from ${at}` : 'from now'}`;
  return at ?? 'Now';
}

/** The chooser's templates (the first page, as viewTemplates lists them) and the one the form started from. */
async function composeTemplates(db: Queryable, appId: string, form: ComposeForm): Promise<ComposeTemplates> {
  const [list, chosen] = await Promise.all([
    listTemplates(db, appId, 0, TEMPLATE_LIMITS.page_max),
    form.template_id ? findTemplate(db, appId, form.template_id) : undefined,
  ]);
  return {
    choices: list.templates.map((t) => ({ id: t.id, name: t.name })),
    more: list.total > list.templates.length,
    chosen: chosen && { id: chosen.id, name: chosen.name },
  };
}

export async function composeSend(ctx: Context, deps: ApiDeps, method: 'show' | 'post'): Promise<void> {
  const s = ctx.state.session as DashboardSession;
  const opts = layoutOf(ctx, 'New message', 'compose');
  if (!mayUse(s.scope, 'send')) throw new ForbiddenError(COMPOSE_NEEDS_SEND_SCOPE);
  const app = await getApp(deps.pool, s.appId);
  if (!app) throw new NotFoundError('No such app.');
  const segments = [...BUILT_IN_SEGMENTS, ...customSegmentNames(app)];
  if (method === 'show') {
    // ?template=<id>: the form filled from one of the app's templates (another app's is not found);
    // the chooser's empty choice is no template.
    const id = ctx.query.template === '' ? undefined : ctx.query.template;
    const template = typeof id === 'string' ? await findTemplate(deps.pool, app.id, id) : undefined;
    if (id !== undefined && !template) throw new NotFoundError('No such template in this app.');
    const form = template ? formFromTemplate(template) : {};
    return page(ctx, opts, composePage(s, app.name, segments, form, [], await composeTemplates(deps.pool, app.id, form)));
  }

  const form: ComposeForm = {};
  for (const [k, v] of Object.entries((ctx.request.body ?? {}) as Record<string, unknown>)) if (typeof v === 'string') form[k] = v;
  const step = form.step === 'send' || form.step === 'edit' ? form.step : 'review';
  const again = async (issues: FieldIssue[], status: number) =>
    page(ctx, opts, composePage(s, app.name, segments, form, issues, await composeTemplates(deps.pool, app.id, form)), status);
  if (step === 'edit') return again([], 200);
  const now = deps.now?.() ?? new Date();
  try {
    // Each step draws its buckets before anything is counted: Review the key's `read` bucket, as a
    // page does; Send the REST send's (classifySend), so a loop of Send without the box ticked is
    // limited as sends are, not a free count each time.
    const draw: Pick<RateDraw, 'bucket' | 'audience'> = step === 'review' ? { bucket: 'read' } : classifySend(bodyFromForm(COMPOSE_SECTIONS, form, { app_id: app.id }));
    if (deps.rateLimiter) await deps.rateLimiter.drawAuthenticated({ ...draw, keyId: s.keyId, appId: app.id, ip: ctx.state.ip });
    const checked = await review(deps, app, form, now);
    const reviewOpts = layoutOf(ctx, 'Review the message', 'compose');
    // The review form's own idempotency key: a second click on Send (or a resubmitted page) is the
    // same request and replays the first send instead of recording another. Edit and Review again
    // make a new one, as a changed message is another send. A form without a valid key (edited by
    // hand) sends undeduplicated, as a REST call without Idempotency-Key.
    const formKey = step === 'send' && isUuid(form.send_key ?? '') ? form.send_key : undefined;
    const sendKey = formKey ?? randomUUID();
    if (step === 'review') return page(ctx, reviewOpts, reviewPage(s, app.name, form, { ...checked, sendKey }));
    // Send confirms what Review showed. The template is read again here; if it changed since
    // Review (updateTemplate), what would go out is not what was confirmed: Review again, showing it.
    // (Deleted since: no version; acceptSend's 422 names it.)
    if (checked.template?.version !== undefined && checked.template.version !== form.template_seen) {
      const changed = 'The template changed after this review: check the message below, then send it again.';
      return page(ctx, reviewOpts, reviewPage(s, app.name, form, { ...checked, sendKey: randomUUID(), notice: changed }), 409);
    }
    const fallbackKey = formKey && `dashboard-${formKey}`;
    const { created, replayed } = await acceptSend(deps, { app, body: checked.body, source: 'dashboard', fallbackKey, now });
    if (!replayed) deps.metrics.sends.inc({ status: created.body.status });
    ctx.state.log.info({ sendId: created.body.id, status: created.body.status, replayed }, 'send accepted from the dashboard');
    ctx.redirect(`/dashboard/sends/${created.body.id}`);
  } catch (error) {
    if (error instanceof HeraldError && error.expose) return again(issuesOf(error), error.status);
    throw error;
  }
}

/**
 * The audience estimate while composing (compose's script asks as the audience fields change): the
 * target fields and the platform choice only, checked by the REST rules, sized by audience-sizes.ts (shared and kept 30 s:
 * the script asks on load and after each change). A GET: it draws the key's read bucket like a page.
 */
export async function composeEstimate(ctx: Context, deps: ApiDeps): Promise<void> {
  const s = ctx.state.session as DashboardSession;
  const app = mayUse(s.scope, 'send') ? await getApp(deps.pool, s.appId) : undefined;
  if (!app) throw new ForbiddenError('Composing a message needs a key of scope send.'); // .json: the REST body
  const form: ComposeForm = { lang_0: 'en', content_0: 'estimate' }; // the text is not the question here
  for (const [k, v] of Object.entries(ctx.query)) if (ESTIMATE_INPUTS.test(k) && typeof v === 'string') form[k] = v;
  try {
    const { estimate, audience } = await review(deps, app, form, deps.now?.() ?? new Date());
    ctx.body = { estimate, audience };
  } catch (error) {
    if (!(error instanceof HeraldError) || !error.expose) throw error;
    ctx.status = error.status;
    ctx.body = { errors: issuesOf(error).filter((i) => areaOf(COMPOSE_SECTIONS, i.field) === 'audience').map((i) => i.message) };
  }
}
