// getNotificationHistory (POST /notifications/{id}/history) and exportEvents (POST
// /notifications/{id}/export_events?app_id=): a send's history and its events as a one-time link
// to a gzip CSV (issue 30 point 3; docs/api.md "History and events of a send"). The link and its
// download are exportSubscriptions' own (core/exports/export-links.ts, api/routes/exports.ts): the
// file is made while it is fetched, so an install erased before then is not in it.
// Tenancy as the other calls: an app_id naming another app is a 403 (as a send's or an export's),
// a send of another app a 404 (as the stats call). A key of scope send (the files name installs,
// users and external ids, as the installs export does) and the `export` bucket.
import type { Context } from 'koa';
import { AuthError, HeraldError, NotFoundError } from '../../core/errors.js';
import { createLink, type LinkRequest } from '../../core/exports/export-links.js';
import { checkHistoryRequest } from '../../core/exports/history-schema.js';
import { sendOfApp } from '../../core/exports/send-files.js';
import type { ApiDeps } from '../shared/deps.js';
import { drawBuckets } from './notifications.js';
import { linkUrl } from './exports.js';

const ID = /^\d{1,15}$/;

/** The path's send, checked to be the key's app's; a link to its file. */
async function sendFileLink(deps: ApiDeps, ctx: Context, kind: Exclude<LinkRequest['kind'], 'subscriptions'>): Promise<string> {
  const id = String(ctx.params.id);
  if (!ID.test(id)) throw new NotFoundError();
  const send = await sendOfApp(deps.pool, ctx.state.auth.appId, Number(id));
  if (!send.found) throw new NotFoundError();
  // The installs it was sent or failed for are kept in its chunk rows, which retention prunes
  // first; its opens stay with the send.
  if (send.chunksPruned && kind !== 'history_clicked') {
    throw new HeraldError(410, 'This notification finished longer ago than its delivery records are kept (HERALD_CHUNK_RETENTION_DAYS): its sent history and events are gone; its clicks are still there (events: clicked).', { expose: true });
  }
  const { token } = await createLink(deps.pool, ctx.state.auth.appId, { kind, sendId: Number(id) }, (deps.now ?? (() => new Date()))());
  return linkUrl(ctx, deps, token);
}

const namesOtherApp = (ctx: Context, appId: unknown) => typeof appId === 'string' && appId.toLowerCase() !== ctx.state.auth.appId;

export function notificationHistoryRoute(deps: ApiDeps) {
  return async function notificationHistoryHandler(ctx: Context): Promise<void> {
    const body = ctx.request.body as Record<string, unknown>;
    if (namesOtherApp(ctx, body.app_id)) throw new AuthError('wrong_app');
    checkHistoryRequest(body);
    await drawBuckets(deps, ctx, { bucket: 'export' });
    const url = await sendFileLink(deps, ctx, body.events === 'sent' ? 'history_sent' : 'history_clicked');
    ctx.body = { success: true, destination_url: url };
  };
}

export function exportEventsRoute(deps: ApiDeps) {
  return async function exportEventsHandler(ctx: Context): Promise<void> {
    // The client always names its app here (required); none, or several, is not the key's.
    const appId = ctx.query.app_id;
    if (typeof appId !== 'string' || namesOtherApp(ctx, appId)) throw new AuthError('wrong_app');
    await drawBuckets(deps, ctx, { bucket: 'export' });
    ctx.body = { csv_file_url: await sendFileLink(deps, ctx, 'events') };
  };
}
