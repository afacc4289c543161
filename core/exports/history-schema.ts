// The body of getNotificationHistory as @onesignal/node-onesignal 5.18.0 sends it
// (GetNotificationHistoryRequestBody: events, email, app_id), bounded. One definition: the call
// declares it (api/routes/notification-history.ts), the one checker (core/validation/checker.ts)
// checks it with the sentences below, and the OpenAPI document publishes it.
import Type from 'typebox';
import type { ErrorObject } from 'ajv';
import type { Sentences } from '../validation/checker.js';

export const HISTORY_EVENTS = ['sent', 'clicked'] as const;
export type HistoryEvents = (typeof HISTORY_EVENTS)[number];

export const HISTORY_REQUEST_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['events', 'app_id'],
  properties: {
    events: { type: 'string', enum: [...HISTORY_EVENTS], description: '`sent`: the installs Apple accepted it for; `clicked`: those that opened it.' },
    app_id: { type: 'string', maxLength: 64, description: "The key's app (another app's id: 403)." },
    // OneSignal mails the link when the file is ready; Herald's link is ready in the answer, so the
    // address is accepted and no email is sent (issue 38 point 2; docs/api.md).
    email: { type: 'string', maxLength: 320, description: 'Accepted as OneSignal takes it; no email is sent: the link is in the answer, ready at once.' },
  },
};

export interface HistoryRequest {
  events: HistoryEvents;
  app_id: string;
  email?: string;
}

/** The schema, typed for the handler that receives the checked body. */
export const HistoryRequestBody = Type.Unsafe<HistoryRequest>(HISTORY_REQUEST_SCHEMA);

/** The call's sentences: a field it does not take, and each rule as it was refused. */
function historySentence(path: string, e: ErrorObject): string | undefined {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return `${path} is not a field of getNotificationHistory.`;
    case 'enum':
      return `${path} is ${String(e.data).slice(0, 64)}: it is one of ${HISTORY_EVENTS.join(', ')}.`;
    case 'maxLength':
      return `${path} is longer than ${String(params.limit)} characters.`;
    case 'required':
      return `${path} is required.`;
    default:
      return `${path || 'body'} ${e.message ?? 'is not valid'}.`;
  }
}

export const HISTORY_SENTENCES: Sentences = { '*': historySentence };
