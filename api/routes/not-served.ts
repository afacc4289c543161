// The calls of the official client (@onesignal/node-onesignal 5.18.0) that Herald does not serve
// (issue 38 point 2): each answers a 4xx whose sentence says what to do instead, never a bare
// "Not found." a newcomer cannot tell from a wrong base address. One declaration per call, from
// one list: the router mounts them and the OpenAPI document publishes them (api/calls/).
// getApp is served for the key's own app (api/routes/app-view.ts).
// The Organization-key calls are 403 (the key they need does not exist here, as copyTemplateToApp);
// channels and features Herald does not have are 404. Refused before any key check.
import { HeraldError } from '../../core/errors.js';
import { declare, type Call } from '../calls/call.js';
import { json, ref } from '../openapi/answers.js';

export interface NotServed {
  call: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The client's path under /api/v1. */
  path: string;
  status: 403 | 404;
  sentence: string;
}

const ORG = 'needs an Organization API key, which Herald does not have (each key belongs to one app)';
const APPS = `${ORG}: an app is an App resource (kubectl apply) or \`herald apps apply -f FILE\`, and \`herald apps list\` shows each app's App ID.`;
const KEYS = `${ORG}: make an app's keys with \`herald keys create --app NAME\`, the App resource's spec.apiKeys or the dashboard's Settings page; \`herald keys list --app NAME\` lists them.`;
const JOURNEYS = 'journeys are not part of Herald: schedule sends with send_after or delayed_option, or drive them from your own backend.';
const PUSH_ONLY = 'Herald sends push only; email and SMS are not part of Herald.';

const org = (call: string, method: NotServed['method'], path: string, what: string): NotServed => ({ call, method, path, status: 403, sentence: `${call} ${what}` });
const absent = (call: string, method: NotServed['method'], path: string, what: string): NotServed => ({ call, method, path, status: 404, sentence: `${call}: ${what}` });

export const NOT_SERVED: readonly NotServed[] = [
  org('createApp', 'post', '/apps', APPS),
  org('getApps', 'get', '/apps', APPS),
  org('updateApp', 'put', '/apps/{app_id}', APPS),
  org('createApiKey', 'post', '/apps/{app_id}/auth/tokens', KEYS),
  org('viewApiKeys', 'get', '/apps/{app_id}/auth/tokens', KEYS),
  org('updateApiKey', 'patch', '/apps/{app_id}/auth/tokens/{token_id}', KEYS),
  org('deleteApiKey', 'delete', '/apps/{app_id}/auth/tokens/{token_id}', KEYS),
  org('rotateApiKey', 'post', '/apps/{app_id}/auth/tokens/{token_id}/rotate', `${ORG}: make a new key with \`herald keys create --app NAME\`, move your backend to it, then revoke the old one with \`herald keys revoke\`.`),
  org('listAuditLogs', 'get', '/organizations/{organization_id}/audit_logs', `${ORG}, and Herald keeps no organization audit log: an app changes through its App resource or \`herald apps apply\`, which your cluster or shell records.`),
  absent('getEmailReputation', 'get', '/apps/{app_id}/email_analytics/delivery_metrics', PUSH_ONLY),
  absent('unsubscribeEmailWithToken', 'post', '/apps/{app_id}/notifications/{notification_id}/unsubscribe', PUSH_ONLY),
  absent('createCustomEvents', 'post', '/apps/{app_id}/custom_events', 'custom events are not part of Herald: name a send\'s audience with segments, tags or filters, and record what users do in your own backend.'),
  absent('createJourney', 'post', '/apps/{app_id}/journeys', JOURNEYS),
  absent('viewJourneys', 'get', '/apps/{app_id}/journeys', JOURNEYS),
  absent('viewJourney', 'get', '/apps/{app_id}/journeys/{journey_id}', JOURNEYS),
  absent('updateJourney', 'patch', '/apps/{app_id}/journeys/{journey_id}', JOURNEYS),
  absent('deleteJourney', 'delete', '/apps/{app_id}/journeys/{journey_id}', JOURNEYS),
  absent('updateJourneyNode', 'patch', '/apps/{app_id}/journeys/{journey_id}/nodes/{node_id}', JOURNEYS),
  absent('viewJourneyStats', 'get', '/apps/{app_id}/journeys/{journey_id}/stats', JOURNEYS),
];

/** Each call not served, declared: refused before any key check, with its sentence. */
export const NOT_SERVED_CALLS: readonly Call[] = NOT_SERVED.map((entry) =>
  declare({
    operationId: entry.call,
    method: entry.method,
    path: entry.path,
    access: 'public',
    answers: {},
    doc: {
      tags: ['not served'],
      summary: `Not served: ${entry.sentence}`,
      parameters: [...entry.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, description: 'Any value: the call is not served.', schema: { type: 'string' } })),
      responses: { [String(entry.status)]: { description: entry.sentence, content: json(ref('Errors')) } },
    },
    handler: () =>
      async function notServedHandler(): Promise<void> {
        throw new HeraldError(entry.status, entry.sentence, { expose: true });
      },
  }),
);
