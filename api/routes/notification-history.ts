// getNotificationHistory (POST /notifications/{id}/history) and exportEvents (POST
// /notifications/{id}/export_events?app_id=): a send's history and its events as a one-time link
// to a gzip CSV (issue 30 point 3; docs/api.md "History and events of a send"). The link and its
// download are exportSubscriptions' own (core/exports/export-links.ts, api/routes/exports.ts): the
// file is made while it is fetched, so an install erased before then is not in it.
// Tenancy as the other calls: an app_id naming another app is a 403 (as a send's or an export's),
// a send of another app a 404 (as the stats call). A key of scope send (the files name installs,
// users and external ids, as the installs export does) and the `export` bucket.
import type { Context } from 'koa';
import { HeraldError, NotFoundError } from '../../core/errors.js';
import { createLink, LINK_TTL_MS, type LinkRequest } from '../../core/exports/export-links.js';
import { HISTORY_REQUEST_SCHEMA, HISTORY_SENTENCES, HistoryRequestBody } from '../../core/exports/history-schema.js';
import { sendOfApp } from '../../core/exports/send-files.js';
import type { ApiDeps } from '../shared/deps.js';
import { declare } from '../calls/call.js';
import { AUTHENTICATED, CHANGING, json, r, ref } from '../openapi/answers.js';
import { pathParam } from '../openapi/path-helpers.js';
import { linkUrl } from './exports.js';

const ID = /^\d{1,15}$/;
const minutes = LINK_TTL_MS / 60_000;

/** The body and the answers, components of the document (api/openapi/schemas.ts). */
export const HISTORY_SCHEMAS = {
  HistoryRequest: { ...HISTORY_REQUEST_SCHEMA, description: "OneSignal's GetNotificationHistoryRequestBody." },
  HistoryLink: {
    type: 'object',
    required: ['success', 'destination_url'],
    properties: {
      success: { const: true },
      destination_url: { type: 'string', description: `A one-time link to the gzip CSV (player_id, onesignal_id, external_id, target_channel; timestamp for clicked), valid ${minutes} minutes.` },
    },
  },
  EventsLink: {
    type: 'object',
    required: ['csv_file_url'],
    properties: { csv_file_url: { type: 'string', description: `A one-time link to the gzip CSV of the send's events, one row per install, valid ${minutes} minutes.` } },
  },
};

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

const SEND_PARAM = pathParam('id', "The send id (another app's: 404).");
/** Retention pruned the send's delivery records (sendFileLink's 410). */
const GONE = { description: "Retention has pruned the send's delivery records (HERALD_CHUNK_RETENTION_DAYS): its sent history and events are gone.", content: json(ref('Errors')) };

export const notificationHistoryCall = declare({
  operationId: 'getNotificationHistory',
  method: 'post',
  path: '/notifications/{id}/history',
  access: 'send-key',
  app: 'body',
  bucket: 'export',
  body: HistoryRequestBody,
  sentences: HISTORY_SENTENCES,
  answers: { '200': { description: 'The link: the file is made when it is fetched.', schema: 'HistoryLink' } },
  doc: {
    tags: ['notifications'],
    summary: 'A one-time link to the installs a send was sent to, or that clicked it (a key of scope send; the export bucket).',
    parameters: [SEND_PARAM],
    requestBody: { required: true, content: json(ref('HistoryRequest')) },
    responses: { '404': r('NotFound'), '410': GONE, ...CHANGING },
  },
  handler: (deps) =>
    async function notificationHistoryHandler(ctx, { body }): Promise<void> {
      const url = await sendFileLink(deps, ctx, body.events === 'sent' ? 'history_sent' : 'history_clicked');
      ctx.body = { success: true, destination_url: url };
    },
});

export const exportEventsCall = declare({
  operationId: 'exportEvents',
  method: 'post',
  path: '/notifications/{id}/export_events',
  access: 'send-key',
  // The client always names its app here (required); none, or several, is not the key's.
  app: 'query',
  appRequired: true,
  bucket: 'export',
  answers: { '200': { description: 'The link: the file is made when it is fetched.', schema: 'EventsLink' } },
  doc: {
    tags: ['notifications'],
    summary: "A one-time link to the send's events, one row per install (a key of scope send; the export bucket).",
    parameters: [SEND_PARAM, { name: 'app_id', in: 'query', required: true, description: "The key's app (another app's id: 403).", schema: { type: 'string' } }],
    responses: { '404': r('NotFound'), '410': GONE, ...AUTHENTICATED },
  },
  handler: (deps) =>
    async function exportEventsHandler(ctx): Promise<void> {
      ctx.body = { csv_file_url: await sendFileLink(deps, ctx, 'events') };
    },
});
