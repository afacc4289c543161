// OneSignal's v1 device calls in the OpenAPI document (issue 38 point 1; api/routes/players.ts,
// api/routes/player-sessions.ts). The bodies' schemas are the routes' own.
import { PLAYER_SCHEMA } from '../../core/subscriptions/player-body.js';
import { PLAYERS_PAGE_MAX } from '../../core/subscriptions/player-view.js';
import { EXTERNAL_TAGS_SCHEMA, FOCUS_SCHEMA, PURCHASE_SCHEMA } from '../../core/subscriptions/player-report-schemas.js';
import { APP_PARAM, changeHelpers, pathParam, type Helpers } from './path-helpers.js';

const PLAYER = {
  type: 'object',
  required: ['id', 'app_id', 'identifier', 'device_type', 'session_count', 'tags', 'notification_types', 'invalid_identifier', 'created_at', 'playtime', 'amount_spent'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'The player id: the subscription id.' },
    app_id: { type: 'string', format: 'uuid' },
    identifier: { type: 'string', description: 'The push token.' },
    device_type: { type: 'integer', enum: [0, 1], description: '0 iOS, 1 Android.' },
    session_count: { type: 'integer', minimum: 0 },
    language: { type: ['string', 'null'] },
    timezone: { type: ['integer', 'null'], description: "Seconds east of UTC now, from the install's time zone." },
    timezone_id: { type: ['string', 'null'], description: 'The IANA time zone Herald keeps.' },
    tags: { type: 'object', additionalProperties: { type: 'string' } },
    external_user_id: { type: ['string', 'null'] },
    notification_types: { type: 'integer', enum: [1, -2], description: '1 subscribed, -2 unsubscribed.' },
    invalid_identifier: { type: 'boolean', description: 'Unsubscribed because the gateway refused the token.' },
    test_type: { type: ['integer', 'null'], enum: [1, 2, null] },
    last_active: { type: ['integer', 'null'], description: 'Unix seconds.' },
    created_at: { type: 'integer', description: 'Unix seconds.' },
    playtime: { type: 'integer', minimum: 0, description: 'Seconds in the app (on_focus).' },
    amount_spent: { type: 'number', description: 'The sum of on_purchase amounts.' },
  },
};

export const PLAYER_SCHEMAS = {
  PlayerRequest: { ...PLAYER_SCHEMA, description: "OneSignal's v1 device body. Kept: the fields below; accepted and not kept: game_version, device_model, device_os, ad_id, sdk, badge_count, lat, long, country, and any other." },
  PlayerAdded: { type: 'object', required: ['success', 'id'], properties: { success: { const: true }, id: { type: 'string', format: 'uuid' } } },
  Player: PLAYER,
  PlayerPage: {
    type: 'object',
    required: ['total_count', 'offset', 'limit', 'players'],
    properties: {
      total_count: { type: 'integer', minimum: 0 },
      offset: { type: 'integer', minimum: 0 },
      limit: { type: 'integer', minimum: 1, maximum: PLAYERS_PAGE_MAX },
      players: { type: 'array', items: { $ref: '#/components/schemas/Player' } },
    },
  },
  PlayerPurchase: PURCHASE_SCHEMA,
  PlayerFocus: FOCUS_SCHEMA,
  ExternalUserTags: EXTERNAL_TAGS_SCHEMA,
  IosParams: {
    type: 'object',
    required: ['require_user_id_auth'],
    properties: {
      require_user_id_auth: { type: 'boolean', description: "The app's identity verification: the SDK then sends external_user_id_auth_hash." },
      fba: { const: false },
      uses_provisional_auth: { const: false },
      require_email_auth: { const: false },
      require_sms_auth: { const: false },
      receive_receipts_enable: { const: false },
      location_shared: { const: false },
      outcomes: { type: 'object' },
    },
  },
};

const ID = pathParam('id', 'The player id (the subscription id).');
const APP_QUERY = { name: 'app_id', in: 'query', required: false, description: "The key's app (another app's id: 403).", schema: { type: 'string' } };
const page = (name: string, description: string, max: number) => ({ name, in: 'query', required: false, description, schema: { type: 'integer', minimum: 0, maximum: max } });
/** With a REST key (scope send, the users bucket) or with the App ID alone (the iOS SDK before 5). */
const KEY_OR_APP = [{ restApiKey: [] }, {}];

export function playerPaths(helpers: Helpers) {
  const { ok, r, json, ref, AUTHENTICATED } = helpers;
  const { body, changing } = changeHelpers(helpers);
  const identity = { description: 'A read key on a change, app_id of another app, a key outside its allow-list, or (app-facing) identity verification on and external_user_id_auth_hash missing or wrong.', content: json(ref('Errors')) };
  const sdkChange = { ...changing, '403': identity, '404': r('NotFound') };
  return {
    '/players': {
      post: {
        operationId: 'addDevice',
        tags: ['players'],
        security: KEY_OR_APP,
        summary: 'Register a device (v1): device_type 0 iOS or 1 Android and its token; a known token updates its player.',
        requestBody: body('PlayerRequest'),
        responses: { '200': ok('Registered or updated.', 'PlayerAdded'), '409': r('Conflict'), ...sdkChange },
      },
      get: {
        operationId: 'viewDevices',
        tags: ['players'],
        summary: "A page of the app's players, in registration order (the read bucket).",
        parameters: [APP_QUERY, page('limit', `1 to ${PLAYERS_PAGE_MAX} (default ${PLAYERS_PAGE_MAX}).`, PLAYERS_PAGE_MAX), page('offset', 'Players to skip.', 2_147_483_647)],
        responses: { '200': ok('A page.', 'PlayerPage'), '422': r('Invalid'), ...AUTHENTICATED },
      },
    },
    '/players/{id}': {
      get: {
        operationId: 'viewDevice',
        tags: ['players'],
        summary: 'One player (the read bucket).',
        parameters: [ID, APP_QUERY],
        responses: { '200': ok('The player.', 'Player'), '404': r('NotFound'), ...AUTHENTICATED },
      },
      put: {
        operationId: 'editDevice',
        tags: ['players'],
        security: KEY_OR_APP,
        summary: 'Change a player (v1 body; device_type cannot change).',
        parameters: [ID],
        requestBody: body('PlayerRequest'),
        responses: { '200': ok('Changed.', 'Success'), '409': r('Conflict'), ...sdkChange },
      },
      delete: {
        operationId: 'deleteDevice',
        tags: ['players'],
        summary: 'Erase a player for good, as deleteSubscription (scope send).',
        parameters: [ID, APP_QUERY],
        responses: { '200': ok('Erased.', 'UserErased'), '404': r('NotFound'), ...AUTHENTICATED },
      },
    },
    '/players/{id}/on_session': {
      post: {
        operationId: 'newSession',
        tags: ['players'],
        security: KEY_OR_APP,
        summary: 'A new session: one more in session_count, last_active now, and the v1 fields given.',
        parameters: [ID],
        requestBody: body('PlayerRequest'),
        responses: { '200': ok('Recorded.', 'Success'), '409': r('Conflict'), ...sdkChange },
      },
    },
    '/players/{id}/on_purchase': {
      post: {
        operationId: 'newPurchase',
        tags: ['players'],
        security: KEY_OR_APP,
        summary: 'Purchases: their amounts added to amount_spent.',
        parameters: [ID],
        requestBody: body('PlayerPurchase'),
        responses: { '200': ok('Recorded.', 'Success'), ...sdkChange },
      },
    },
    '/players/{id}/on_focus': {
      post: {
        operationId: 'incrementSessionLength',
        tags: ['players'],
        security: KEY_OR_APP,
        summary: 'Time in the app: active_time added to playtime.',
        parameters: [ID],
        requestBody: body('PlayerFocus'),
        responses: { '200': ok('Recorded.', 'Success'), ...sdkChange },
      },
    },
    '/apps/{app_id}/ios_params.js': {
      get: {
        operationId: 'getIosParams',
        tags: ['players'],
        security: [],
        summary: 'The settings the iOS SDK before 5 downloads at start (App ID alone; the sdk bucket per IP).',
        parameters: [APP_PARAM, { name: 'player_id', in: 'query', required: false, description: 'Sent by the SDK; not read.', schema: { type: 'string' } }],
        responses: { '200': { description: 'The settings.', content: json(ref('IosParams')) }, '404': r('NotFound'), '429': r('TooManyRequests'), '500': r('ServerError'), '503': r('Unavailable') },
      },
    },
    '/apps/{app_id}/users/{external_user_id}': {
      put: {
        operationId: 'editTagsWithExternalUserIdDevice',
        tags: ['players'],
        summary: 'Tags on every device of that external id, as updateUser by its external_id alias ("" or null removes one; scope send).',
        parameters: [APP_PARAM, pathParam('external_user_id', 'The external id.')],
        requestBody: body('ExternalUserTags'),
        responses: { '200': ok('Changed.', 'Success'), '404': r('NotFound'), ...changing },
      },
    },
  };
}
