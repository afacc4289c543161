// exportSubscriptions (issue 27; docs/api.md "Export"): POST /players/csv_export?app_id= answers
// OneSignal's {"csv_file_url"}, a one-time link Herald serves itself (core/exports/export-links.ts);
// GET /exports/{token}.csv.gz streams the gzip CSV (core/exports/stream-export.ts). The same links
// and download serve a send's history and events (api/routes/notification-history.ts).
// The request needs a key of scope send (the file holds every device token whole) and draws the
// `export` bucket; the download needs no key (the link is the credential, as OneSignal's file
// URL), and an unknown or expired link draws the address's `anonymous` bucket as a wrong key does.
import type { Context } from 'koa';
import { AuthError, HeraldError, NotFoundError, ServiceUnavailableError, ValidationError } from '../../core/errors.js';
import { getApp } from '../../core/apps/app-store.js';
import { checkExportRequest } from '../../core/exports/export-schema.js';
import { createLink, peekLink, takeLink } from '../../core/exports/export-links.js';
import { segmentKnown, STALL_MS, streamExport } from '../../core/exports/stream-export.js';
import { sendFileName } from '../../core/exports/send-files.js';
import type { ApiDeps } from '../shared/deps.js';
import { drawBuckets } from './notifications.js';

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

export function exportSubscriptionsRoute(deps: ApiDeps) {
  const now = deps.now ?? (() => new Date());
  return async function exportSubscriptionsHandler(ctx: Context): Promise<void> {
    const appId = String(ctx.query.app_id ?? '').toLowerCase();
    if (appId !== ctx.state.auth.appId) throw new AuthError('wrong_app');
    const body = ctx.request.body ?? {};
    checkExportRequest(body);
    await drawBuckets(deps, ctx, { bucket: 'export' });
    if (body.segment_name !== undefined) {
      const app = await getApp(deps.pool, appId);
      if (!app || !segmentKnown(app, body.segment_name)) {
        throw new ValidationError({ field: 'segment_name', message: `segment_name: the app has no segment ${body.segment_name}.` });
      }
    }
    const { token } = await createLink(deps.pool, appId, { kind: 'subscriptions', request: body }, now());
    ctx.body = { csv_file_url: linkUrl(ctx, deps, token) };
  };
}

export function downloadExportRoute(deps: ApiDeps) {
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
