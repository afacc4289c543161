// GET /api/v1/notifications/{id} (stats), GET /api/v1/notifications (OneSignal's list call) and
// DELETE /api/v1/notifications/{id} (OneSignal's cancel). Tenancy: only the key's app is ever
// read; another app's id, an unknown id and an in-app card are the same 404 (after the draw).
import type { Context } from 'koa';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import { listNotifications, readNotification } from '../../core/send/report.js';
import { LIST_STATUSES, parseListFilter } from '../../core/send/list-query.js';
import { MAX_TIME_OFFSET_LENGTH } from '../../core/send/time-offset.js';
import { SEND_KINDS, SEND_SOURCES } from '../../core/formats/send-source.js';
import { cancelSend } from '../../core/send/cancel.js';
import { declare } from '../calls/call.js';
import { AUTHENTICATED, r } from '../openapi/answers.js';

const ID = /^\d{1,15}$/;

const APP_ID_QUERY = { name: 'app_id', in: 'query', required: false, description: "The key's app (another app's id finds nothing).", schema: { type: 'string' } };
const ID_PATH = { name: 'id', in: 'path', required: true, description: 'The send id.', schema: { type: 'string' } };
const query = (name: string, description: string, schema: unknown) => ({ name, in: 'query', required: false, description, schema });

/** The send id of the path, checked against the key's app and the optional app_id parameter. */
function sendId(ctx: Context): number {
  const id = String(ctx.params.id);
  const queryApp = ctx.query.app_id;
  if (!ID.test(id)) throw new NotFoundError();
  if (queryApp !== undefined && String(queryApp).toLowerCase() !== ctx.state.auth.appId) throw new NotFoundError();
  return Number(id);
}

// The list's query is read by core/send/list-query.ts (its 400s name the parameter).
export const listNotificationsCall = declare({
  operationId: 'getNotifications',
  method: 'get',
  path: '/notifications',
  access: 'key',
  bucket: 'read',
  answers: { '200': { description: 'A page of sends.', schema: 'NotificationPage' } },
  doc: {
    tags: ['notifications'],
    summary: "The app's sends, newest first (OneSignal's list call).",
    parameters: [
      APP_ID_QUERY,
      query('limit', 'Page size, 1 to 50 (default 50).', { type: 'integer', minimum: 0, maximum: 50 }),
      query('offset', 'Sends to skip (not with time_offset).', { type: 'integer', minimum: 0, maximum: 1000000 }),
      query('time_offset', "OneSignal's: an ISO 8601 time or a page's next_time_offset; the sends after it, oldest first by send_after (not with offset).", { type: 'string', maxLength: MAX_TIME_OFFSET_LENGTH }),
      query('kind', '0 Dashboard, 1 API, 3 Automated (a Send applied in the cluster).', { type: 'integer', enum: SEND_KINDS }),
      query('source', 'The same filter by name.', { type: 'string', enum: SEND_SOURCES }),
      query('status', 'A status, or canceled.', { type: 'string', enum: LIST_STATUSES }),
      query('from', 'Created at or after (YYYY-MM-DD or RFC 3339).', { type: 'string' }),
      query('to', 'Created before (a bare date includes that day).', { type: 'string' }),
      query('q', 'Text in contents or headings, or an id.', { type: 'string', maxLength: 200 }),
    ],
    responses: { '400': r('BadRequest'), '404': r('NotFound'), '422': r('Invalid'), ...AUTHENTICATED },
  },
  handler: (deps) =>
    async function listNotificationsHandler(ctx): Promise<void> {
      const queryApp = ctx.query.app_id;
      // The official client always names its app; naming another app finds nothing of it.
      if (queryApp !== undefined && String(queryApp).toLowerCase() !== ctx.state.auth.appId) throw new NotFoundError('No such app.');
      ctx.body = await listNotifications(deps.pool, ctx.state.auth.appId, parseListFilter(ctx.query));
    },
});

export const readNotificationCall = declare({
  operationId: 'getNotification',
  method: 'get',
  path: '/notifications/{id}',
  access: 'key',
  bucket: 'read',
  answers: { '200': { description: 'The send.', schema: 'Notification' } },
  doc: {
    tags: ['notifications'],
    summary: "A send's counters and details.",
    parameters: [ID_PATH, APP_ID_QUERY],
    responses: { '404': r('NotFound'), ...AUTHENTICATED },
  },
  handler: (deps) =>
    async function readNotificationHandler(ctx): Promise<void> {
      const report = await readNotification(deps.pool, ctx.state.auth.appId, sendId(ctx));
      if (!report) throw new NotFoundError();
      ctx.body = report;
    },
});

export const cancelNotificationCall = declare({
  operationId: 'cancelNotification',
  method: 'delete',
  path: '/notifications/{id}',
  access: 'send-key',
  bucket: 'send',
  answers: { '200': { description: 'Canceled.', schema: 'Success' } },
  doc: {
    tags: ['notifications'],
    summary: 'Cancel a scheduled or running send (needs a key of scope send).',
    description: 'No new chunk starts; chunks in flight finish. The send ends approved if some devices were reached, else draft; canceled is true. Repeating is harmless.',
    parameters: [ID_PATH, APP_ID_QUERY],
    responses: { '404': r('NotFound'), '409': r('Conflict'), ...AUTHENTICATED },
  },
  handler: (deps) =>
    async function cancelNotificationHandler(ctx): Promise<void> {
      const outcome = await cancelSend(deps.pool, ctx.state.auth.appId, sendId(ctx));
      if (outcome.kind === 'not_found') throw new NotFoundError();
      if (outcome.kind === 'finished') {
        throw new ConflictError(`This notification has already finished (${outcome.status}); there is nothing to cancel.`);
      }
      ctx.state.log.info({ sendId: ctx.params.id }, 'send canceled');
      ctx.body = { success: true };
    },
});
