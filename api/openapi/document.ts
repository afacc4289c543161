// The OpenAPI 3.1 document of Herald's REST interface, served at GET /api/v1/openapi.json. Linted
// in `make test` (test/dashboard/openapi.test.ts) and checked against real answers: the api test
// suites' client validates every answer it gets against it (test/support/openapi-check.ts).
import { COMPONENTS, INFO, TAGS } from './components.js';
import { userPaths } from './user-paths.js';
import { playerPaths } from './player-paths.js';
import { mergePaths, pathsOf } from './call-paths.js';
import { REST_CALLS } from '../calls/index.js';
import { OWN_TOKEN_PUSH_TYPES } from '../../core/payload/push-types.js';
import { AUTHENTICATED, IDENTITY, SDK, json, ok, r, ref } from './answers.js';

/** The push type of an install's own-token call: one of the types with a token of their own. */
const PUSH_TYPE_PARAM = { name: 'push_type', in: 'path', required: true, schema: { type: 'string', enum: [...OWN_TOKEN_PUSH_TYPES] } };
const pathParam = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });

const idPath = { name: 'id', in: 'path', required: true, description: 'The send id.', schema: { type: 'string' } };

export const openApiDocument = {
  openapi: '3.1.0',
  info: INFO,
  servers: [{ url: '/api/v1' }],
  security: [{ restApiKey: [] }],
  tags: TAGS,
  // The declared calls' paths (api/calls/), and those still written here.
  paths: mergePaths(pathsOf(REST_CALLS), {
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
      delete: {
        operationId: 'deleteSubscription',
        tags: ['users'],
        summary: 'Erase one install for good, in the request: its token, Live Activity tokens, opens and its id in list sends (needs a key of scope send; the users bucket). Its user stays.',
        parameters: [{ name: 'app_id', in: 'path', required: true, schema: { type: 'string' } }, { name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '202': ok('Erased.', 'UserErased'), '404': r('NotFound'), ...AUTHENTICATED },
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
    ...userPaths({ ok, r, json, ref, AUTHENTICATED }),
    ...playerPaths({ ok, r, json, ref, AUTHENTICATED }),
  }),
  components: COMPONENTS,
};
