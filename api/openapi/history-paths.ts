// getNotificationHistory, exportEvents and getOutcomes in the OpenAPI document (issue 30 points 3
// and 4; api/routes/notification-history.ts, api/routes/outcomes.ts): the official client's paths,
// the history body (the validator's own schema, core/exports/history-schema.ts), the query
// parameters as core/send/click-outcomes.ts reads them, and the answers. The files are downloaded
// from /exports/{file} (export-paths.ts). What differs from OneSignal: docs/api.md.
import { HISTORY_REQUEST_SCHEMA } from '../../core/exports/history-schema.js';
import { LINK_TTL_MS } from '../../core/exports/export-links.js';
import { CLICK_OUTCOME, OUTCOME_ATTRIBUTIONS, OUTCOME_LIMITS, OUTCOME_PLATFORMS, OUTCOME_TIME_RANGES } from '../../core/send/click-outcomes.js';
import { APP_PARAM, pathParam, type Helpers } from './path-helpers.js';

const minutes = LINK_TTL_MS / 60_000;

export const HISTORY_SCHEMAS = {
  HistoryRequest: { ...HISTORY_REQUEST_SCHEMA, description: "OneSignal's GetNotificationHistoryRequestBody." },
  HistoryLink: {
    type: 'object',
    required: ['success', 'destination_url'],
    properties: {
      success: { const: true },
      destination_url: { type: 'string', description: `A one-time link to the gzip CSV (player_id, onesignal_id, external_id, target_channel; timestamp for clicked), valid ${minutes} minutes.` },
    },
  },
  EventsLink: {
    type: 'object',
    required: ['csv_file_url'],
    properties: { csv_file_url: { type: 'string', description: `A one-time link to the gzip CSV of the send's events, one row per install, valid ${minutes} minutes.` } },
  },
  Outcomes: {
    type: 'object',
    required: ['outcomes'],
    properties: {
      outcomes: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'value', 'aggregation'],
          properties: { id: { const: CLICK_OUTCOME }, value: { type: 'integer', minimum: 0 }, aggregation: { const: 'count' } },
        },
      },
    },
  },
};

const query = (name: string, description: string, schema: unknown, required = false) => ({ name, in: 'query', required, description, schema });
const sendParam = pathParam('id', 'The send id (another app\'s: 404).');

export function historyPaths({ ok, r, json, ref, AUTHENTICATED }: Helpers) {
  const gone = { description: "Retention has pruned the send's delivery records (HERALD_CHUNK_RETENTION_DAYS): its sent history and events are gone.", content: json(ref('Errors')) };
  return {
    '/notifications/{id}/history': {
      post: {
        operationId: 'getNotificationHistory',
        tags: ['notifications'],
        summary: 'A one-time link to the installs a send was sent to, or that clicked it (a key of scope send; the export bucket).',
        parameters: [sendParam],
        requestBody: { required: true, content: json(ref('HistoryRequest')) },
        responses: { '200': ok('The link: the file is made when it is fetched.', 'HistoryLink'), '400': r('BadRequest'), '404': r('NotFound'), '410': gone, '413': r('TooLarge'), '415': r('UnsupportedMediaType'), '422': r('Invalid'), ...AUTHENTICATED },
      },
    },
    '/notifications/{id}/export_events': {
      post: {
        operationId: 'exportEvents',
        tags: ['notifications'],
        summary: "A one-time link to the send's events, one row per install (a key of scope send; the export bucket).",
        parameters: [sendParam, query('app_id', "The key's app (another app's id: 403).", { type: 'string' }, true)],
        responses: { '200': ok('The link: the file is made when it is fetched.', 'EventsLink'), '404': r('NotFound'), '410': gone, ...AUTHENTICATED },
      },
    },
    '/apps/{app_id}/outcomes': {
      get: {
        operationId: 'getOutcomes',
        tags: ['notifications'],
        summary: "The app's click outcome (os__click.count) over a time range (any key; the estimate bucket).",
        parameters: [
          APP_PARAM,
          query('outcome_names', `Comma-separated; only ${CLICK_OUTCOME}.count is recorded (any other name: 400).`, { type: 'string' }),
          query('outcome_names[]', 'One name (a name with a comma).', { type: 'string', maxLength: OUTCOME_LIMITS.name }),
          query('outcome_time_range', 'The last hour, day or 30 days (default 1h; 30d as 1mo).', { type: 'string', enum: Object.keys(OUTCOME_TIME_RANGES) }),
          query('outcome_platforms', `Comma-separated device types (${OUTCOME_PLATFORMS.join(', ')}); Herald's installs are 0, iOS, and 1, Android.`, { type: 'string' }),
          query('outcome_attribution', 'A click is direct: influenced and unattributed are 0 (default total).', { type: 'string', enum: OUTCOME_ATTRIBUTIONS }),
        ],
        responses: { '200': ok('The outcome.', 'Outcomes'), '400': r('BadRequest'), ...AUTHENTICATED },
      },
    },
  };
}
