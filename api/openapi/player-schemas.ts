// The components of OneSignal's v1 device calls in the OpenAPI document (issue 38 point 1): the
// bodies' schemas are the routes' own (api/routes/players.ts, api/routes/player-sessions.ts), the
// answers' are written here; the calls themselves are declared beside their handlers.
import { PLAYER_SCHEMA } from '../../core/subscriptions/player-body.js';
import { PLAYERS_PAGE_MAX } from '../../core/subscriptions/player-view.js';
import { EXTERNAL_TAGS_SCHEMA, FOCUS_SCHEMA, PURCHASE_SCHEMA } from '../../core/subscriptions/player-report-schemas.js';

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
