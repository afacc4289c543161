// The body of getNotificationHistory as @onesignal/node-onesignal 5.18.0 sends it
// (GetNotificationHistoryRequestBody: events, email, app_id), bounded. One definition: the route
// validates with it and the OpenAPI document publishes it.
import { Ajv, type ErrorObject } from 'ajv';
import { ValidationError, type FieldIssue } from '../errors.js';

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

const ajv = new Ajv({ allErrors: true, verbose: true });
const check = ajv.compile(HISTORY_REQUEST_SCHEMA);

/** Throws a 422 naming each field unless `body` is a history request Herald can serve. */
export function checkHistoryRequest(body: unknown): asserts body is HistoryRequest {
  const issues = check(body) ? [] : (check.errors ?? []).map(issueOf);
  if (issues.length) throw new ValidationError(issues);
}

function issueOf(e: ErrorObject): FieldIssue {
  const at = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { field: String(params.missingProperty), message: `${String(params.missingProperty)} is required.` };
    case 'additionalProperties':
      return { field: String(params.additionalProperty), message: `${String(params.additionalProperty)} is not a field of getNotificationHistory.` };
    case 'enum':
      return { field: at, message: `${at} is ${String(e.data).slice(0, 64)}: it is one of ${HISTORY_EVENTS.join(', ')}.` };
    case 'maxLength':
      return { field: at, message: `${at} is longer than ${String(params.limit)} characters.` };
    default:
      return { field: at || 'body', message: `${at || 'body'} ${e.message ?? 'is not valid'}.` };
  }
}
