// POST /api/v1/notifications: the contract's send operation (reads and cancel: notification-reports.ts).
// The order of checks is DECISIONS "Limits": key → body → app_id → buckets (the mount,
// api/calls/mount.ts) → 402 → 422 → idempotency → the send (core/send/accept.ts).
import type { Context } from 'koa';
import { IDEMPOTENCY_KEY_SCHEMA } from '../../core/formats/idempotency-key.js';
import { declare } from '../calls/call.js';
import { componentBody } from '../calls/unchecked-body.js';
import { AUTHENTICATED, r } from '../openapi/answers.js';
import { AuthError } from '../../core/errors.js';
import { getApp } from '../../core/apps/app-store.js';
import { acceptSend, type AcceptInput } from '../../core/send/accept.js';
import type { CreatedSend } from '../../core/send-model/response.js';
import { SharedRead } from '../../core/store/coalesce.js';
import { targetDraw } from '../../core/audience/target-kinds.js';
import type { ApiDeps, RateDraw } from '../shared/deps.js';

/** The class bucket and audience identity of a send body, read before any body rule runs: the table's (core/audience/target-kinds.ts). */
export const classifySend: (body: Readonly<Record<string, unknown>>) => Pick<RateDraw, 'bucket' | 'audience'> = targetDraw;

export async function drawBuckets(deps: ApiDeps, ctx: Context, draw: Omit<RateDraw, 'keyId' | 'appId' | 'ip'>): Promise<void> {
  if (!deps.rateLimiter) return;
  const headers = await deps.rateLimiter.drawAuthenticated({ ...draw, keyId: ctx.state.auth.keyId, appId: ctx.state.auth.appId, ip: ctx.state.ip });
  for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
}

export interface AcceptCall {
  body: Record<string, unknown>;
  validate?: AcceptInput['validate'];
  prepare?: AcceptInput['prepare'];
  onAccepted?: AcceptInput['onAccepted'];
  onRecorded?: AcceptInput['onRecorded'];
  fingerprint?: unknown;
}

/**
 * The route's half of the one accept path (core/send/accept.ts), shared by the send and the Live
 * Activity calls, after the mount checked the app they name and drew their buckets (their
 * declarations say which): the app's row (shared while a read is in flight), acceptSend, the
 * replay headers, the metric and the log line.
 */
export function routeAccept(deps: ApiDeps) {
  const now = deps.now ?? (() => new Date());
  // The app row is read for every send (its pause and segments): concurrent sends of one app
  // share the read in flight, never a cached copy (core/store/coalesce.ts).
  const apps = new SharedRead((id) => getApp(deps.pool, id));
  return async function accept(ctx: Context, call: AcceptCall): Promise<CreatedSend> {
    const appId: string = ctx.state.auth.appId;
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

/** The Idempotency-Key header of the calls that accept a send. */
export const IDEMPOTENCY_KEY_PARAM = { name: 'Idempotency-Key', in: 'header', required: false, schema: IDEMPOTENCY_KEY_SCHEMA };

/** Refusals of the calls that accept a send, beside their answers. */
export const ACCEPT_REFUSALS = { '400': r('BadRequest'), '402': r('PaymentRequired'), '409': r('Conflict'), '413': r('TooLarge'), '415': r('UnsupportedMediaType'), '422': r('Invalid'), ...AUTHENTICATED };

export const createNotificationCall = declare({
  operationId: 'createNotification',
  method: 'post',
  path: '/notifications',
  access: 'send-key',
  app: 'body',
  bucket: (_ctx, body) => classifySend(body),
  // The send's rules run in acceptSend, after the 402 (core/send/accept.ts).
  body: componentBody('SendRequest'),
  bodyUnchecked: true,
  answers: {
    '200': { description: 'Sending to a list, scheduled, a draft (no credentials) or an empty audience.', schema: 'SendResponse' },
    '202': { description: 'Queued: a segment or tag send delivered in the background.', schema: 'SendResponse' },
  },
  doc: {
    tags: ['notifications'],
    summary: 'Send a notification (needs a key of scope send).',
    parameters: [IDEMPOTENCY_KEY_PARAM],
    responses: ACCEPT_REFUSALS,
  },
  handler: (deps) => {
    const accept = routeAccept(deps);
    return async function createNotificationHandler(ctx, { body }): Promise<void> {
      const created = await accept(ctx, { body });
      ctx.status = created.httpStatus;
      ctx.body = created.body;
    };
  },
});
