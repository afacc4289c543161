// POST /api/v1/notifications/count-unsaved: the official client's estimateNotificationRecipients
// (core/send/estimate.ts). Any key of the app; the body's app_id is checked against the key as a
// send's is (403). A segment, tag or `filters` body is counted as a broadcast is, so it draws the
// `estimate` bucket (core/buckets/policy.ts); a list body (≤ 500 ids) is a cheap read: `read`.
// What differs from OneSignal: docs/api.md "POST /notifications/count-unsaved".
import { AuthError } from '../../core/errors.js';
import { getApp } from '../../core/apps/app-store.js';
import { estimateSend } from '../../core/send/estimate.js';
import { TARGET_FIELDS } from '../../core/validation/send-target.js';
import { declare } from '../calls/call.js';
import { componentBody } from '../calls/unchecked-body.js';
import { CHANGING } from '../openapi/answers.js';
import { sendBodyFields } from '../openapi/path-helpers.js';
import { classifySend } from './notifications.js';

/** The request and the answer, components of the document (api/openapi/schemas.ts). */
export const ESTIMATE_SCHEMAS = {
  EstimateRequest: {
    ...sendBodyFields(
      "OneSignal's EstimateNotificationRecipientsRequest: a send body's audience (one target, excluded_segments), read by the send's own rules; a whole send body is accepted and its other fields checked for type only.",
      ['app_id', ...TARGET_FIELDS, 'excluded_segments'],
    ),
    required: ['app_id'],
  },
  Estimate: {
    type: 'object',
    required: ['count'],
    properties: { count: { type: 'integer', minimum: 0, description: 'The devices a send to this audience made now would count as its estimate.' } },
  },
};

export const estimateNotificationCall = declare({
  operationId: 'estimateNotificationRecipients',
  method: 'post',
  path: '/notifications/count-unsaved',
  access: 'key',
  app: 'body',
  bucket: (_ctx, body) => ({ bucket: classifySend(body).bucket === 'send' ? 'read' : 'estimate' }),
  // Read by the send's own rules (core/send/estimate.ts).
  body: componentBody('EstimateRequest'),
  bodyUnchecked: true,
  answers: { '200': { description: 'The count.', schema: 'Estimate' } },
  doc: {
    tags: ['notifications'],
    summary: 'The audience size of a send body, counted as the send counts it; records nothing (any key of the app; the estimate bucket, a list body the read bucket).',
    description:
      'A segment, tag or `filters` body runs the count a broadcast runs, so it draws the `estimate` bucket (30 a minute per key, bursts of 10, as `broadcast`; not the app\'s `audience` bucket, which sends draw); a list body (at most 500 ids) draws `read`. Both are named in `RateLimit-Policy`; past the burst the answer is 429.',
    responses: CHANGING,
  },
  handler: (deps) =>
    async function estimateNotificationHandler(ctx, { body }): Promise<void> {
      const app = await getApp(deps.pool, ctx.state.auth.appId);
      if (!app || app.disabled) throw new AuthError('revoked');
      ctx.body = await estimateSend(deps.pool, app, body);
    },
});
