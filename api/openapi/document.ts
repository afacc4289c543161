// The OpenAPI 3.1 document of Herald's REST interface, served at GET /api/v1/openapi.json. Linted
// in `make test` (test/dashboard/openapi.test.ts) and checked against real answers: the api test
// suites' client validates every answer it gets against it (test/support/openapi-check.ts).
import { schemas } from './schemas.js';
import { LIST_STATUSES } from '../../core/send/list-query.js';
import { MAX_TIME_OFFSET_LENGTH } from '../../core/send/time-offset.js';
import { SEND_KINDS, SEND_SOURCES } from '../../core/formats/send-source.js';
import { IDEMPOTENCY_KEY_SCHEMA } from '../../core/formats/idempotency-key.js';
import { exportPaths } from './export-paths.js';
import { segmentPaths } from './segment-paths.js';
import { estimatePaths } from './estimate-paths.js';
import { templatePaths } from './template-paths.js';
import { historyPaths } from './history-paths.js';
import { playerPaths } from './player-paths.js';
import { mergePaths, pathsOf } from './call-paths.js';
import { REST_CALLS } from '../calls/index.js';
import { OWN_TOKEN_PUSH_TYPES } from '../../core/payload/push-types.js';
import { AUTHENTICATED, IDENTITY, RATE_HEADERS, SDK, header, json, ok, r, ref } from './answers.js';

/** The push type of an install's own-token call: one of the types with a token of their own. */
const PUSH_TYPE_PARAM = { name: 'push_type', in: 'path', required: true, schema: { type: 'string', enum: [...OWN_TOKEN_PUSH_TYPES] } };
const pathParam = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });

const appIdQuery = { name: 'app_id', in: 'query', required: false, description: "The key's app (another app's id finds nothing).", schema: { type: 'string' } };
const idPath = { name: 'id', in: 'path', required: true, description: 'The send id.', schema: { type: 'string' } };
const query = (name: string, description: string, schema: unknown) => ({ name, in: 'query', required: false, description, schema });

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Herald REST API',
    version: '1',
    description: 'Push notifications for iOS apps, compatible with OneSignal\'s REST calls: existing clients work with their base server set to /api/v1.',
    license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
  },
  servers: [{ url: '/api/v1' }],
  security: [{ restApiKey: [] }],
  tags: [{ name: 'notifications', description: 'Sends and their reports (REST API key).' }, { name: 'sdk', description: 'App-facing calls of the iOS SDK (app id only).' }, { name: 'subscriptions', description: 'Installs of the app, read with its REST API key.' }, { name: 'live activities', description: 'Start, update and end Live Activities (REST API key).' }, { name: 'users', description: "OneSignal's users and aliases (REST API key)." }, { name: 'segments', description: 'Segments: built-in, the App resource\'s (read-only) and the API\'s (REST API key).' }, { name: 'templates', description: "Message templates a send names by template_id (REST API key)." }, { name: 'apps', description: "The key's own app (getApp)." }, { name: 'not served', description: "The official client's calls Herald does not serve, each answered with what to do instead." }, { name: 'players', description: "OneSignal's v1 device calls: views of the installs (REST API key, or the App ID alone as the iOS SDK before 5)." }],
  // The declared calls' paths (api/calls/), and those still written here.
  paths: mergePaths(pathsOf(REST_CALLS), {
    '/notifications': {
      post: {
        operationId: 'createNotification',
        tags: ['notifications'],
        summary: 'Send a notification (needs a key of scope send).',
        parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: IDEMPOTENCY_KEY_SCHEMA }],
        requestBody: { required: true, content: json(ref('SendRequest')) },
        responses: {
          '200': ok('Sending to a list, scheduled, a draft (no credentials) or an empty audience.', 'SendResponse'),
          '202': ok('Queued: a segment or tag send delivered in the background.', 'SendResponse'),
          '400': r('BadRequest'),
          '402': r('PaymentRequired'),
          '409': r('Conflict'),
          '413': r('TooLarge'),
          '415': r('UnsupportedMediaType'),
          '422': r('Invalid'),
          ...AUTHENTICATED,
        },
      },
      get: {
        operationId: 'getNotifications',
        tags: ['notifications'],
        summary: "The app's sends, newest first (OneSignal's list call).",
        parameters: [
          appIdQuery,
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
        responses: { '200': ok('A page of sends.', 'NotificationPage'), '400': r('BadRequest'), '404': r('NotFound'), '422': r('Invalid'), ...AUTHENTICATED },
      },
    },
    ...estimatePaths({ ok, r, json, ref, AUTHENTICATED }),
    '/notifications/{id}': {
      get: {
        operationId: 'getNotification',
        tags: ['notifications'],
        summary: "A send's counters and details.",
        parameters: [idPath, appIdQuery],
        responses: { '200': ok('The send.', 'Notification'), '404': r('NotFound'), ...AUTHENTICATED },
      },
      delete: {
        operationId: 'cancelNotification',
        tags: ['notifications'],
        summary: 'Cancel a scheduled or running send (needs a key of scope send).',
        description: 'No new chunk starts; chunks in flight finish. The send ends approved if some devices were reached, else draft; canceled is true. Repeating is harmless.',
        parameters: [idPath, appIdQuery],
        responses: { '200': ok('Canceled.', 'Success'), '404': r('NotFound'), '409': r('Conflict'), ...AUTHENTICATED },
      },
    },
    '/notifications/{id}/opened': {
      post: {
        operationId: 'reportOpen',
        tags: ['sdk'],
        security: [],
        parameters: [idPath],
        requestBody: { required: true, content: json(ref('Open')) },
        responses: { '200': { description: 'Recorded (clicked rises once per install that was in the send\'s audience; other opens are answered alike and not counted).', content: json(ref('Success')) }, '404': r('NotFound'), ...SDK },
      },
    },
    '/apps/{app_id}/subscriptions': {
      post: {
        operationId: 'registerSubscription',
        tags: ['sdk'],
        security: [],
        parameters: [{ name: 'app_id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: { required: true, content: json(ref('SubscriptionCreate')) },
        responses: {
          '200': { description: 'A known token, updated.', content: json(ref('SubscriptionId')) },
          '201': { description: 'A new install.', content: json(ref('SubscriptionId')) },
          '403': IDENTITY,
          '409': { description: 'The external id names a user that already holds 20 subscriptions, or the token is an install of the other type (docs/decisions.md).', content: json(ref('Errors')) },
          '404': r('NotFound'),
          ...SDK,
        },
      },
    },
    '/apps/{app_id}/subscriptions/{id}': {
      get: {
        operationId: 'readSubscription',
        tags: ['subscriptions'],
        summary: "One install of the key's app: whether it is subscribed and why not, its gateway and last registration.",
        parameters: [{ name: 'app_id', in: 'path', required: true, schema: { type: 'string' } }, { name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': ok('The install.', 'Subscription'), '404': r('NotFound'), ...AUTHENTICATED },
      },
      patch: {
        operationId: 'updateSubscription',
        tags: ['sdk'],
        security: [],
        parameters: [{ name: 'app_id', in: 'path', required: true, schema: { type: 'string' } }, { name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        description: "The app's flat fields, or the official client's updateSubscription body {\"subscription\": {type, token, enabled, test_type}} (another field of it is a 422 naming it).",
        requestBody: { required: true, content: json({ anyOf: [ref('SubscriptionPatch'), ref('SubscriptionBody')] }) },
        responses: { '200': { description: 'Updated.', content: json(ref('SubscriptionId')) }, '403': IDENTITY, '404': r('NotFound'), '409': r('Conflict'), ...SDK },
      },
    },
    '/apps/{app_id}/activities/activity/{activity_type}': {
      post: {
        operationId: 'startLiveActivity',
        tags: ['live activities'],
        summary: 'Start a Live Activity by push (push-to-start) on the installs of an audience named as in sends that hold a push-to-start token of the type (needs a key of scope send).',
        parameters: [pathParam('app_id'), pathParam('activity_type'), { name: 'Idempotency-Key', in: 'header', required: false, schema: IDEMPOTENCY_KEY_SCHEMA }],
        requestBody: { required: true, content: json(ref('StartLiveActivityRequest')) },
        responses: {
          '201': ok('Accepted: a send of kind live_activity (read it with GET /notifications/{id}).', 'StartLiveActivityResponse'),
          '400': r('BadRequest'), '402': r('PaymentRequired'), '409': r('Conflict'), '413': r('TooLarge'), '415': r('UnsupportedMediaType'), '422': r('Invalid'),
          ...AUTHENTICATED,
        },
      },
    },
    '/apps/{app_id}/live_activities/{activity_id}/notifications': {
      post: {
        operationId: 'updateLiveActivity',
        tags: ['live activities'],
        summary: "Update or end a Live Activity: a push to every update token the app's installs registered for the activity (needs a key of scope send).",
        parameters: [pathParam('app_id'), pathParam('activity_id'), { name: 'Idempotency-Key', in: 'header', required: false, schema: IDEMPOTENCY_KEY_SCHEMA }],
        requestBody: { required: true, content: json(ref('UpdateLiveActivityRequest')) },
        responses: {
          '200': ok('Accepted: a send of kind live_activity (read it with GET /notifications/{id}); an end drops the tokens once delivered.', 'UpdateLiveActivityResponse'),
          '400': r('BadRequest'), '402': r('PaymentRequired'), '409': r('Conflict'), '413': r('TooLarge'), '415': r('UnsupportedMediaType'), '422': r('Invalid'),
          ...AUTHENTICATED,
        },
      },
    },
    '/apps/{app_id}/live_activities/{activity_id}/token': {
      post: {
        operationId: 'setLiveActivityUpdateToken',
        tags: ['sdk'],
        security: [],
        summary: "An install's update token for a Live Activity it shows (OneSignal's SDK: OSRequestSetUpdateToken).",
        parameters: [pathParam('app_id'), pathParam('activity_id')],
        requestBody: { required: true, content: json(ref('LiveActivityUpdateToken')) },
        responses: { '200': { description: 'Set (replaces the install\'s earlier token for the activity).', content: json(ref('Success')) }, '403': IDENTITY, '404': r('NotFound'), ...SDK },
      },
    },
    '/apps/{app_id}/live_activities/{activity_id}/channel': {
      get: {
        operationId: 'readLiveActivityChannel',
        tags: ['sdk'],
        security: [],
        summary: "The activity's broadcast channel, made on first need, for an app that starts the activity itself (docs/live-activities.md).",
        parameters: [
          pathParam('app_id'), pathParam('activity_id'),
          { name: 'subscription_id', in: 'query', required: true, description: "The install's Subscription ID.", schema: { type: 'string', format: 'uuid' } },
          { name: 'external_id_auth_hash', in: 'query', required: false, description: "When the app verifies identity: the hash of the install's external id.", schema: { type: 'string', maxLength: 128 } },
        ],
        responses: { '200': { description: 'The channel (null: none for this install).', content: json(ref('LiveActivityChannel')) }, '403': IDENTITY, '404': r('NotFound'), ...SDK },
      },
    },
    '/apps/{app_id}/live_activities/{activity_id}/token/{subscription_id}': {
      delete: {
        operationId: 'removeLiveActivityUpdateToken',
        tags: ['sdk'],
        security: [],
        summary: 'The activity ended on the device: its update token goes (OSRequestRemoveUpdateToken).',
        parameters: [pathParam('app_id'), pathParam('activity_id'), pathParam('subscription_id')],
        responses: { '200': { description: 'Removed.', content: json(ref('Success')) }, '404': r('NotFound'), ...SDK },
      },
    },
    '/apps/{app_id}/activities/tokens/start/{activity_type}/subscriptions/{subscription_id}': {
      put: {
        operationId: 'setLiveActivityStartToken',
        tags: ['sdk'],
        security: [],
        summary: "An install's push-to-start token for an activity type (OSRequestSetStartToken).",
        parameters: [pathParam('app_id'), pathParam('activity_type'), pathParam('subscription_id')],
        requestBody: { required: true, content: json(ref('LiveActivityStartToken')) },
        responses: { '200': { description: 'Set.', content: json(ref('Success')) }, '403': IDENTITY, '404': r('NotFound'), ...SDK },
      },
      delete: {
        operationId: 'removeLiveActivityStartToken',
        tags: ['sdk'],
        security: [],
        summary: 'The push-to-start token of an activity type goes.',
        parameters: [pathParam('app_id'), pathParam('activity_type'), pathParam('subscription_id')],
        responses: { '200': { description: 'Removed.', content: json(ref('Success')) }, '404': r('NotFound'), ...SDK },
      },
    },
    '/apps/{app_id}/subscriptions/{subscription_id}/push_tokens/{push_type}': {
      put: {
        operationId: 'setPushTypeToken',
        tags: ['sdk'],
        security: [],
        summary: "An install's token of a push type with a token of its own (VoIP, location, complication, push-to-talk, widgets, controls); a send with that apns_push_type_override goes to it (docs/api.md \"Push types\").",
        parameters: [pathParam('app_id'), pathParam('subscription_id'), PUSH_TYPE_PARAM],
        requestBody: { required: true, content: json(ref('PushTypeToken')) },
        responses: { '200': { description: "Set (replaces the install's earlier token of that type).", content: json(ref('Success')) }, '403': IDENTITY, '404': r('NotFound'), ...SDK },
      },
      delete: {
        operationId: 'removePushTypeToken',
        tags: ['sdk'],
        security: [],
        summary: "The install's token of that push type goes (its alert token stays).",
        parameters: [pathParam('app_id'), pathParam('subscription_id'), PUSH_TYPE_PARAM],
        responses: { '200': { description: 'Removed.', content: json(ref('Success')) }, '404': r('NotFound'), ...SDK },
      },
    },
    ...exportPaths({ ok, r, json, ref, AUTHENTICATED }),
    ...segmentPaths({ ok, r, json, ref, AUTHENTICATED }),
    ...templatePaths({ ok, r, json, ref, AUTHENTICATED }),
    ...historyPaths({ ok, r, json, ref, AUTHENTICATED }),
    ...playerPaths({ ok, r, json, ref, AUTHENTICATED }),
    '/openapi.json': {
      get: { operationId: 'getOpenApi', security: [], summary: 'This document.', responses: { '200': { description: 'OpenAPI 3.1', content: json({ type: 'object' }) } } },
    },
  }),
  components: {
    securitySchemes: {
      restApiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`Key <REST API key>` (also Basic and Bearer).' },
    },
    headers: {
      'RateLimit-Limit': header('Burst size of the bucket closest to empty.'),
      'RateLimit-Remaining': header('Tokens left in it.'),
      'RateLimit-Reset': header('Seconds until it is full.'),
      'RateLimit-Policy': header('One entry per bucket drawn.'),
      'X-RateLimit-Limit': header('As RateLimit-Limit.'),
      'X-RateLimit-Remaining': header('As RateLimit-Remaining.'),
      'X-RateLimit-Reset': header('Unix time when it is full (on a 429: now + Retry-After).'),
      'Retry-After': header('Seconds to wait.'),
    },
    responses: {
      BadRequest: { description: 'Malformed JSON, or a bad query parameter (named in the sentence).', content: json(ref('Errors')) },
      Unauthorized: { description: 'Missing, malformed, unknown or revoked key.', headers: { 'WWW-Authenticate': header('Key') }, content: json(ref('Errors')) },
      Forbidden: { description: 'Key used from outside its allow-list, app_id of another app, or a read key on a change.', content: json(ref('Errors')) },
      PaymentRequired: { description: "The app's invoice is overdue; nothing recorded.", content: json(ref('Errors')) },
      NotFound: { description: "Unknown id, another app's id, or an in-app card.", content: json(ref('Errors')) },
      Conflict: { description: 'An idempotent repeat still running, or a cancel of a finished send.', content: json(ref('Errors')) },
      TooLarge: { description: 'Body over 1 MB.', content: json(ref('Errors')) },
      UnsupportedMediaType: { description: 'Body not application/json.', content: json(ref('Errors')) },
      Invalid: { description: 'Rules broken: one sentence each.', content: json(ref('Errors')) },
      TooManyRequests: {
        description: 'A rate bucket is empty.',
        headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' }, ...RATE_HEADERS },
        content: json(ref('RateLimited')),
      },
      ServerError: { description: 'Unexpected failure; the sentence names the request id.', content: json(ref('Errors')) },
      Unavailable: { description: 'A server Herald needs is down; retry.', content: json(ref('Errors')) },
    },
    schemas,
  },
};
