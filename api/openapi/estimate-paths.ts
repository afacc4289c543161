// estimateNotificationRecipients in the OpenAPI document (issue 30; api/routes/notification-estimate.ts):
// the official client's path, the audience view of the send body's one schema, and its answer.
// What differs from OneSignal: docs/api.md "POST /notifications/count-unsaved".
import { TARGET_FIELDS } from '../../core/validation/send-target.js';
import { sendBodyFields, type Helpers } from './path-helpers.js';

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
    properties: { count: { type: 'integer', minimum: 0, description: "The devices a send to this audience made now would count as its estimate." } },
  },
};

export function estimatePaths({ ok, r, json, ref, AUTHENTICATED }: Helpers) {
  return {
    '/notifications/count-unsaved': {
      post: {
        operationId: 'estimateNotificationRecipients',
        tags: ['notifications'],
        summary: "The audience size of a send body, counted as the send counts it; records nothing (any key of the app; the estimate bucket, a list body the read bucket).",
        description: "A segment, tag or `filters` body runs the count a broadcast runs, so it draws the `estimate` bucket (30 a minute per key, bursts of 10, as `broadcast`; not the app's `audience` bucket, which sends draw); a list body (at most 500 ids) draws `read`. Both are named in `RateLimit-Policy`; past the burst the answer is 429.",
        requestBody: { required: true, content: json(ref('EstimateRequest')) },
        responses: { '200': ok('The count.', 'Estimate'), '400': r('BadRequest'), '413': r('TooLarge'), '415': r('UnsupportedMediaType'), '422': r('Invalid'), ...AUTHENTICATED },
      },
    },
  };
}
