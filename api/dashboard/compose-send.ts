// The compose page's two steps: show the form (a `send` key only) and send it through the REST
// call's own path: the same buckets, then acceptSend (402, validation, idempotency, the record), with
// source Dashboard.
import type { Context } from 'koa';
import { getApp } from '../../core/apps/app-store.js';
import { HeraldError } from '../../core/errors.js';
import { acceptSend } from '../../core/send/accept.js';
import type { ApiDeps } from '../deps.js';
import { classifySend } from '../routes/notifications.js';
import { html } from './html.js';
import { bodyFromForm, composePage, type ComposeForm } from './pages/compose.js';
import { layoutOf, page } from './respond.js';
import type { DashboardSession } from './session.js';

const BUILT_IN_SEGMENTS = ['Subscribed Users', 'Active Users', 'Inactive Users'];

export async function composeSend(ctx: Context, deps: ApiDeps, step: 'show' | 'send'): Promise<void> {
  const s = ctx.state.session as DashboardSession;
  const opts = layoutOf(ctx, 'New message', 'compose');
  if (s.scope !== 'send') {
    return page(ctx, opts, html`<h1>Not allowed</h1><p>Composing a message needs a key of scope send; this session's key may only read.</p>`, 403);
  }
  const app = await getApp(deps.pool, s.appId);
  if (!app) return page(ctx, opts, html`<h1>Not found</h1>`, 404);
  const segments = [...BUILT_IN_SEGMENTS, ...app.segments.map((seg) => seg.name)];
  const form: ComposeForm = {};
  if (step === 'show') return page(ctx, opts, composePage(s, segments, form));

  for (const [k, v] of Object.entries((ctx.request.body ?? {}) as Record<string, unknown>)) if (typeof v === 'string') form[k] = v;
  const body = bodyFromForm(form, app.id);
  const again = (messages: string[], status: number) => page(ctx, opts, composePage(s, segments, form, messages), status);
  try {
    if (deps.rateLimiter) await deps.rateLimiter.drawAuthenticated({ ...classifySend(body), keyId: s.keyId, appId: app.id, ip: ctx.state.ip });
    const { created } = await acceptSend(deps, { app, body, source: 'dashboard', now: deps.now?.() ?? new Date() });
    deps.metrics.sends.inc({ status: created.body.status });
    ctx.state.log.info({ sendId: created.body.id, status: created.body.status }, 'send accepted from the dashboard');
    ctx.redirect(`/dashboard/sends/${created.body.id}`);
  } catch (error) {
    if (error instanceof HeraldError && error.expose) return again(error.messages, error.status);
    throw error;
  }
}
