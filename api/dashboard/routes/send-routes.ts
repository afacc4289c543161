// The sends pages: the list (filtered, paged, its CSV), a send's report with its live refresh,
// and cancel (a page that asks, then the POST of its form, with a key that may send). Every query
// is the session's app's: another app's send id is "Not found" like an unknown one.
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { mayUse } from '../../../core/apps/keys.js';
import { ForbiddenError, HeraldError, NotFoundError } from '../../../core/errors.js';
import { deliveryTimeline, readNotification } from '../../../core/send/report.js';
import { parseListFilter } from '../../../core/send/list-query.js';
import { cancelSend } from '../../../core/send/cancel.js';
import { readSendMessage } from '../../../core/dashboard-reads/send-message.js';
import { appHasAndroidInstalls } from '../../../core/dashboard-reads/app-platforms.js';
import type { ApiDeps } from '../../shared/deps.js';
import type { Html } from '../html.js';
import { layoutOf, page, session } from '../respond.js';
import { PAGE_SIZE, sendsCsv, sendsPage } from '../pages/list.js';
import { cancellable, cancelConfirmPage, live, reportPage } from '../pages/report.js';
import { sendAudiences } from '../send-audiences.js';

const ID = /^\d{1,15}$/;
const NO_SUCH_SEND = 'No such send in this app.';
const CANCEL_NEEDS_SEND_SCOPE = 'Cancelling needs a key of scope send.';

export function mountSends(router: Router, deps: ApiDeps, signedIn: Middleware[], changes: Middleware[]): void {
  router.get('/dashboard/sends', ...signedIn, async (ctx) => {
    let body: Html;
    try {
      body = await sendsPage(deps.pool, session(ctx).appId, parseListFilter({ ...ctx.query, limit: String(PAGE_SIZE) }, { limit: PAGE_SIZE }));
    } catch (error) {
      if (!(error instanceof HeraldError) || error.status !== 400) throw error;
      body = await sendsPage(deps.pool, session(ctx).appId, { limit: PAGE_SIZE, offset: 0 }, error.messages);
    }
    page(ctx, layoutOf(ctx, 'Sends', 'sends'), body);
  });

  router.get('/dashboard/sends.csv', ...signedIn, async (ctx) => {
    const filter = parseListFilter({ ...ctx.query, limit: '50' });
    ctx.type = 'text/csv; charset=utf-8';
    ctx.attachment('sends.csv');
    ctx.body = await sendsCsv(deps.pool, session(ctx).appId, filter);
  });

  const loadReport = async (ctx: Context) => {
    const id = String(ctx.params.id);
    const report = ID.test(id) ? await readNotification(deps.pool, session(ctx).appId, Number(id)) : undefined;
    if (!report) return undefined;
    const [timeline, android] = await Promise.all([deliveryTimeline(deps.pool, report.id), appHasAndroidInstalls(deps.pool, session(ctx).appId)]);
    return live(report, timeline, android);
  };

  router.get('/dashboard/sends/:id', ...signedIn, async (ctx) => {
    const data = await loadReport(ctx);
    if (!data) throw new NotFoundError(NO_SUCH_SEND);
    const appId = session(ctx).appId;
    const [message, audiences] = await Promise.all([readSendMessage(deps.pool, appId, data.report.id), sendAudiences(deps.pool, appId, [data.report.id])]);
    if (!message) throw new NotFoundError(NO_SUCH_SEND);
    page(ctx, layoutOf(ctx, `Send ${data.report.id}`), reportPage(data, session(ctx), { message, audience: audiences.get(data.report.id) ?? '' }));
  });

  router.get('/dashboard/sends/:id/live.json', ...signedIn, async (ctx) => {
    const data = await loadReport(ctx);
    if (!data) throw new NotFoundError();
    ctx.body = data;
  });

  // A GET only asks: the change is the POST of its form (the CSRF token and the scope are checked there too).
  router.get('/dashboard/sends/:id/cancel', ...signedIn, async (ctx) => {
    const s = session(ctx);
    if (!mayUse(s.scope, 'send')) throw new ForbiddenError(CANCEL_NEEDS_SEND_SCOPE);
    const data = await loadReport(ctx);
    if (!data) throw new NotFoundError(NO_SUCH_SEND);
    if (!cancellable(data.report)) return ctx.redirect(`/dashboard/sends/${data.report.id}`);
    const audience = (await sendAudiences(deps.pool, s.appId, [data.report.id])).get(data.report.id) ?? '';
    page(ctx, layoutOf(ctx, `Cancel send ${data.report.id}?`), cancelConfirmPage(data, s, audience));
  });

  router.post('/dashboard/sends/:id/cancel', ...signedIn, ...changes, async (ctx) => {
    const s = session(ctx);
    if (!mayUse(s.scope, 'send')) throw new ForbiddenError(CANCEL_NEEDS_SEND_SCOPE);
    const id = String(ctx.params.id);
    const outcome = ID.test(id) ? await cancelSend(deps.pool, s.appId, Number(id)) : { kind: 'not_found' as const };
    if (outcome.kind === 'not_found') throw new NotFoundError(NO_SUCH_SEND);
    ctx.state.log.info({ sendId: id }, 'send canceled from the dashboard');
    ctx.redirect(`/dashboard/sends/${id}`);
  });
}
