// POST /api/v1/notifications: the contract's send operation (reads and cancel: notification-reports.ts).
// The order of checks is DECISIONS "Limits": key → body → app_id → buckets → 402 → 422 →
// idempotency → the send.
import type { Context } from 'koa';
import { AuthError } from '../../core/errors.js';
import { getApp } from '../../core/apps/app-store.js';
import { acceptSend } from '../../core/send/accept.js';
import type { ApiDeps, RateDraw } from '../deps.js';

// Aliases name the same audience, so they share its bucket (the same map as core/validation/send-target.ts).
const SEGMENT_ALIASES = new Map([['All', 'Subscribed Users'], ['All Subscribers', 'Subscribed Users']]);

/** The class bucket and audience identity of a send body, read before any body rule runs. */
export function classifySend(body: Record<string, unknown>): Pick<RateDraw, 'bucket' | 'audience'> {
  const segments = body.included_segments;
  const filters = body.filters;
  const named: string[] = [];
  if (segments !== undefined) named.push('segment');
  if (body.tag !== undefined) named.push('tag');
  if (filters !== undefined) named.push('filters');
  if (!named.length) return { bucket: 'send' };
  if (named.length > 1) return { bucket: 'broadcast' };
  if (named[0] === 'segment' && Array.isArray(segments) && segments.length === 1 && typeof segments[0] === 'string') {
    return { bucket: 'broadcast', audience: `segment:${SEGMENT_ALIASES.get(segments[0]) ?? segments[0]}` };
  }
  const tag = named[0] === 'tag' ? body.tag : Array.isArray(filters) && filters.length === 1 ? filters[0] : undefined;
  if (tag && typeof tag === 'object') {
    const t = tag as Record<string, unknown>;
    return { bucket: 'broadcast', audience: `tag:${JSON.stringify([t.key, t.relation, t.value ?? null])}` };
  }
  return { bucket: 'broadcast' };
}

export async function drawBuckets(deps: ApiDeps, ctx: Context, draw: Omit<RateDraw, 'keyId' | 'appId' | 'ip'>): Promise<void> {
  if (!deps.rateLimiter) return;
  const headers = await deps.rateLimiter.drawAuthenticated({ ...draw, keyId: ctx.state.auth.keyId, appId: ctx.state.auth.appId, ip: ctx.state.ip });
  for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
}

export function createNotification(deps: ApiDeps) {
  const now = deps.now ?? (() => new Date());
  return async function createNotificationHandler(ctx: Context): Promise<void> {
    const body = ctx.request.body as Record<string, unknown>;
    const appId: string = ctx.state.auth.appId;
    if (typeof body.app_id === 'string' && body.app_id.toLowerCase() !== appId) throw new AuthError('wrong_app');
    await drawBuckets(deps, ctx, classifySend(body));

    const app = await getApp(deps.pool, appId);
    if (!app || app.disabled) throw new AuthError('revoked');
    const { created, replayed } = await acceptSend(deps, {
      app,
      body,
      source: 'api',
      idempotencyHeader: ctx.get('Idempotency-Key') || undefined,
      now: now(),
    });
    if (replayed) {
      ctx.set('Idempotent-Replay', 'true');
      ctx.set('Idempotent-Replayed', 'true');
    } else {
      deps.metrics.sends.inc({ status: created.body.status });
      ctx.state.log.info({ sendId: created.body.id, status: created.body.status, estimate: created.body.estimate }, 'send accepted');
    }
    ctx.status = created.httpStatus;
    ctx.body = created.body;
  };
}
