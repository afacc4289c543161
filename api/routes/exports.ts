// exportSubscriptions (issue 27; docs/api.md "Export"): POST /players/csv_export?app_id= answers
// OneSignal's {"csv_file_url"}, a one-time link Herald serves itself (core/exports/export-links.ts);
// GET /exports/{token}.csv.gz streams the gzip CSV (core/exports/stream-export.ts). The same links
// and download serve a send's history and events (api/routes/notification-history.ts).
// The request needs a key of scope send (the file holds every device token whole) and draws the
// `export` bucket; the download needs no key (the link is the credential, as OneSignal's file
// URL), and an unknown or expired link draws the address's `anonymous` bucket as a wrong key does.
import type { Context } from 'koa';
import { HeraldError, NotFoundError, ServiceUnavailableError, ValidationError } from '../../core/errors.js';
import { getApp } from '../../core/apps/app-store.js';
import { EXPORT_REQUEST_SCHEMA, EXPORT_SENTENCES, ExportRequestBody } from '../../core/exports/export-schema.js';
import { createLink, LINK_TTL_MS, peekLink, takeLink } from '../../core/exports/export-links.js';
import { segmentKnown, STALL_MS, streamExport } from '../../core/exports/stream-export.js';
import { sendFileName } from '../../core/exports/send-files.js';
import type { ApiDeps } from '../shared/deps.js';
import { declare } from '../calls/call.js';
import { CHANGING, json, r, ref } from '../openapi/answers.js';

/** The body and the answer, components of the document (api/openapi/schemas.ts). */
export const EXPORT_SCHEMAS = {
  ExportRequest: { ...EXPORT_REQUEST_SCHEMA, description: "OneSignal's ExportSubscriptionsRequestBody: all three fields optional." },
  ExportLink: {
    type: 'object',
    required: ['csv_file_url'],
    properties: { csv_file_url: { type: 'string', description: `A one-time link to the gzip CSV, valid ${LINK_TTL_MS / 60_000} minutes.` } },
  },
};

/** Downloads one api process streams at once: each holds a pool connection for its whole length. */
export const CONCURRENT_EXPORTS = 2;
const FILE = /^([A-Za-z0-9_-]{43})\.csv\.gz$/;

/** The link's origin as the caller reached us (X-Forwarded-Proto and Host when a proxy is trusted). */
function origin(ctx: Context, trustProxyHops: number): string {
  const proto = trustProxyHops > 0 ? ctx.get('X-Forwarded-Proto').split(',')[0].trim() : '';
  const host = (trustProxyHops > 0 && ctx.get('X-Forwarded-Host').split(',')[0].trim()) || ctx.host;
  return `${proto === 'https' || proto === 'http' ? proto : ctx.protocol}://${host}`;
}

/** The download address of a link's token, as the caller reached the api. */
export function linkUrl(ctx: Context, deps: ApiDeps, token: string): string {
  return `${origin(ctx, deps.trustProxyHops)}/api/v1/exports/${token}.csv.gz`;
}

export const exportSubscriptionsCall = declare({
  operationId: 'exportSubscriptions',
  method: 'post',
  path: '/players/csv_export',
  access: 'send-key',
  app: 'query',
  appRequired: true,
  bucket: 'export',
  body: ExportRequestBody,
  sentences: EXPORT_SENTENCES,
  bodyOptional: true,
  answers: { '200': { description: 'The link: the file is made when it is fetched.', schema: 'ExportLink' } },
  doc: {
    tags: ['subscriptions'],
    summary: "A one-time link to the gzip CSV of the app's installs (needs a key of scope send; the export bucket).",
    parameters: [{ name: 'app_id', in: 'query', required: true, description: "The key's app (another app's id: 403).", schema: { type: 'string' } }],
    requestBody: { required: false, content: json(ref('ExportRequest')) },
    responses: CHANGING,
  },
  handler: (deps) => {
    const now = deps.now ?? (() => new Date());
    return async function exportSubscriptionsHandler(ctx, { body }): Promise<void> {
      const appId: string = ctx.state.auth.appId;
      if (body.segment_name !== undefined) {
        const app = await getApp(deps.pool, appId);
        if (!app || !segmentKnown(app, body.segment_name)) {
          throw new ValidationError({ field: 'segment_name', message: `segment_name: the app has no segment ${body.segment_name}.` });
        }
      }
      const { token } = await createLink(deps.pool, appId, { kind: 'subscriptions', request: body }, now());
      ctx.body = { csv_file_url: linkUrl(ctx, deps, token) };
    };
  },
});

const FILE_PARAM = { name: 'file', in: 'path', required: true, description: 'The link\'s token and ".csv.gz".', schema: { type: 'string' } };

// No key: the link is the credential, as OneSignal's file URL; a HEAD asks without using it up.
export const downloadExportCall = declare({
  operationId: 'downloadExport',
  method: 'get',
  path: '/exports/{file}',
  access: 'public',
  answers: {},
  doc: {
    tags: ['subscriptions'],
    security: [],
    summary: 'The export, streamed as it is read: one download per link, within its time.',
    parameters: [FILE_PARAM],
    responses: {
      '200': { description: 'The gzip CSV (OneSignal\'s columns Herald keeps).', content: { 'application/gzip': { schema: { type: 'string', contentEncoding: 'binary' } } } },
      '404': r('NotFound'),
      '410': { description: 'The link expired, or its segment was deleted.', content: json(ref('Errors')) },
      '429': r('TooManyRequests'),
      '500': r('ServerError'),
      '503': r('Unavailable'),
    },
    head: {
      operationId: 'checkExport',
      tags: ['subscriptions'],
      security: [],
      summary: 'Whether the link would serve, without using it up.',
      parameters: [FILE_PARAM],
      responses: { '200': { description: 'It would serve.' }, '404': { description: 'No such link, or used.' }, '410': { description: 'Expired.' }, '429': r('TooManyRequests') },
    },
  },
  handler: (deps) => downloadExportRoute(deps),
});

function downloadExportRoute(deps: ApiDeps) {
  const now = deps.now ?? (() => new Date());
  let streaming = 0;
  const refuse = async (ctx: Context, error: HeraldError) => {
    if (deps.rateLimiter) for (const [name, value] of Object.entries(await deps.rateLimiter.drawAnonymous(ctx.state.ip))) ctx.set(name, value);
    throw error;
  };
  return async function downloadExportHandler(ctx: Context): Promise<void> {
    const file = FILE.exec(String(ctx.params.file));
    if (!file) return refuse(ctx, new NotFoundError('No such export.'));
    // A HEAD (a link checker, a proxy probing) asks without using the link up.
    if (ctx.method === 'HEAD') {
      const state = await peekLink(deps.pool, file[1], now());
      if (state === 'unknown') return refuse(ctx, new NotFoundError('No such export: a link serves one download.'));
      if (state === 'expired') return refuse(ctx, new HeraldError(410, 'This export link has expired: ask for a new one.', { expose: true }));
      ctx.status = 200;
      ctx.type = 'application/gzip';
      return;
    }
    // Before the link is used: a busy process leaves it for a retry.
    if (streaming >= CONCURRENT_EXPORTS) throw new ServiceUnavailableError(30);
    streaming++;
    try {
      const taken = await takeLink(deps.pool, file[1], now());
      if (taken.kind === 'unknown') return await refuse(ctx, new NotFoundError('No such export: a link serves one download.'));
      if (taken.kind === 'expired') return await refuse(ctx, new HeraldError(410, 'This export link has expired: ask for a new one.', { expose: true }));
      const app = await getApp(deps.pool, taken.link.appId);
      if (!app) throw new NotFoundError('No such export.');
      if (taken.link.segmentName !== null && !segmentKnown(app, taken.link.segmentName)) {
        throw new HeraldError(410, `The segment ${taken.link.segmentName} was deleted since this export was asked for.`, { expose: true });
      }
      const day = now().toISOString().slice(0, 10);
      const name = taken.link.kind === 'subscriptions' ? `subscriptions_${app.id}_${day}.csv.gz` : sendFileName(taken.link, day);
      // Written by hand (the stream owns the answer); the status is also Koa's, for the metrics.
      ctx.status = 200;
      ctx.respond = false;
      ctx.res.writeHead(200, {
        'Content-Type': 'application/gzip',
        'Content-Disposition': `attachment; filename="${name}"`,
        'Cache-Control': 'no-store',
      });
      const socket = ctx.req.socket;
      const stalled = () => socket.destroy();
      socket.setTimeout(STALL_MS);
      socket.on('timeout', stalled);
      try {
        await streamExport(deps.pool, app, taken.link, ctx.res);
        ctx.state.log?.info({ appId: app.id, kind: taken.link.kind, sendId: taken.link.sendId ?? undefined }, 'export downloaded');
      } catch (error) {
        // The answer has begun: the caller sees a cut connection (a gzip stream without its end).
        ctx.state.log?.warn({ err: error, appId: app.id }, 'export cut short');
        ctx.res.destroy();
      } finally {
        socket.off('timeout', stalled);
        socket.setTimeout(0);
      }
    } finally {
      streaming--;
    }
  };
}
