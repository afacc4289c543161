// POST /api/v1/notifications: the contract's send operation (reads and cancel: notification-reports.ts).
// The order of checks is DECISIONS "Limits": key → body → app_id → buckets → 402 → 422 →
// idempotency → the send.
import type { Context } from 'koa';
import { AuthError } from '../../core/errors.js';
import { getApp } from '../../core/apps/app-store.js';
import { acceptSend, type AcceptInput } from '../../core/send/accept.js';
import type { CreatedSend } from '../../core/send-model/response.js';
import { SharedRead } from '../../core/store/coalesce.js';
import { targetDraw } from '../../core/audience/target-kinds.js';
import type { ApiDeps, RateDraw } from '../shared/deps.js';

/** The class bucket and audience identity of a send body, read before any body rule runs: the table's (core/audience/target-kinds.ts). */
export const classifySend: (body: Record<string, unknown>) => Pick<RateDraw, 'bucket' | 'audience'> = targetDraw;

export async function drawBuckets(deps: ApiDeps, ctx: Context, draw: Omit<RateDraw, 'keyId' | 'appId' | 'ip'>): Promise<void> {
  if (!deps.rateLimiter) return;
  const headers = await deps.rateLimiter.drawAuthenticated({ ...draw, keyId: ctx.state.auth.keyId, appId: ctx.state.auth.appId, ip: ctx.state.ip });
  for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
}

export interface AcceptCall {
  /** The app the path or body names: it must be the key's (else 403, as a send's app_id). */
  namedAppId?: unknown;
  draw: Pick<RateDraw, 'bucket' | 'audience'>;
  body: Record<string, unknown>;
  validate?: AcceptInput['validate'];
  prepare?: AcceptInput['prepare'];
  onAccepted?: AcceptInput['onAccepted'];
  onRecorded?: AcceptInput['onRecorded'];
  fingerprint?: unknown;
}

/**
 * The route's half of the one accept path (core/send/accept.ts), shared by the send and the Live
 * Activity calls: the app named, the buckets, the app's row (shared while a read is in flight),
 * acceptSend, the replay headers, the metric and the log line.
 */
export function routeAccept(deps: ApiDeps) {
  const now = deps.now ?? (() => new Date());
  // The app row is read for every send (its pause and segments): concurrent sends of one app
  // share the read in flight, never a cached copy (core/store/coalesce.ts).
  const apps = new SharedRead((id) => getApp(deps.pool, id));
  return async function accept(ctx: Context, call: AcceptCall): Promise<CreatedSend> {
    const appId: string = ctx.state.auth.appId;
    if (typeof call.namedAppId === 'string' && call.namedAppId.toLowerCase() !== appId) throw new AuthError('wrong_app');
    await drawBuckets(deps, ctx, call.draw);
    const app = await apps.get(appId);
    if (!app || app.disabled) throw new AuthError('revoked');
    const { created, replayed } = await acceptSend(deps, {
      app,
      body: call.body,
      source: 'api',
      idempotencyHeader: ctx.get('Idempotency-Key') || undefined,
      now: now(),
      validate: call.validate,
      prepare: call.prepare,
      onAccepted: call.onAccepted,
      onRecorded: call.onRecorded,
      fingerprint: call.fingerprint,
    });
    if (replayed) {
      ctx.set('Idempotent-Replay', 'true');
      ctx.set('Idempotent-Replayed', 'true');
    } else {
      deps.metrics.sends.inc({ status: created.body.status });
      ctx.state.log.info({ sendId: created.body.id, status: created.body.status, estimate: created.body.estimate }, 'send accepted');
    }
    return created;
  };
}

export function createNotification(deps: ApiDeps) {
  const accept = routeAccept(deps);
  return async function createNotificationHandler(ctx: Context): Promise<void> {
    const body = ctx.request.body as Record<string, unknown>;
    const created = await accept(ctx, { namedAppId: body.app_id, draw: classifySend(body), body });
    ctx.status = created.httpStatus;
    ctx.body = created.body;
  };
}
