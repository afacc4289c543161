// Components of the OpenAPI document (document.ts): the bodies Herald reads and answers, as JSON
// Schema 2020-12 (OpenAPI 3.1). Field meanings: docs/api.md and the contract.
import { openApiSendRequest } from '../../core/validation/schema-views.js';

const STATUS = { type: 'string', enum: ['queued', 'sending', 'scheduled', 'approved', 'draft'] };
const COUNT = { type: 'integer', minimum: 0 };
const LANGUAGE_MAP = { type: 'object', additionalProperties: { type: 'string' } };
const UNIX_SECONDS = { type: 'integer', description: 'Unix time in seconds.' };

const stats = {
  id: { type: 'integer', description: 'The send id.' },
  app_id: { type: 'string', format: 'uuid' },
  status: STATUS,
  total_recipients: COUNT,
  processed: COUNT,
  remaining: COUNT,
  sent: COUNT,
  successful: COUNT,
  failed: COUNT,
  skipped: COUNT,
  clicked: COUNT,
  converted: COUNT,
  errored: COUNT,
  contents: LANGUAGE_MAP,
  headings: LANGUAGE_MAP,
  source: { type: 'string', enum: ['api', 'kubernetes', 'dashboard'] },
  message: { type: 'string' },
  queued_at: UNIX_SECONDS,
  send_after: UNIX_SECONDS,
  completed_at: { type: ['integer', 'null'], description: 'Unix seconds when the send ended; null while it runs.' },
  throttle_rate_per_minute: { type: ['integer', 'null'] },
  canceled: { type: 'boolean' },
};

const subscriptionFields = {
  token: { type: 'string', pattern: '^[0-9a-fA-F]{8,200}$' },
  external_id: { type: ['string', 'null'], minLength: 1, maxLength: 128 },
  language: { type: ['string', 'null'], pattern: '^[a-z]{2}(-[A-Za-z]{2,4})?$' },
  timezone: { type: ['string', 'null'], maxLength: 64 },
  tags: { type: 'object', maxProperties: 200, propertyNames: { maxLength: 128 }, additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength: 128 } },
  subscribed: { type: 'boolean' },
  external_id_auth_hash: {
    type: 'string',
    maxLength: 128,
    description: "Identity verification (docs/api.md): hex HMAC-SHA256 of the external id with the app's identity secret, made by the app's server.",
  },
};

export const schemas = {
  Errors: {
    type: 'object',
    required: ['errors'],
    properties: { errors: { type: 'array', minItems: 1, items: { type: 'string' } } },
  },
  RateLimited: {
    type: 'object',
    required: ['message', 'errors'],
    properties: { message: { type: 'string' }, errors: { type: 'array', minItems: 1, items: { type: 'string' } } },
  },
  // Derived from the send body's one schema, like the api's validator and the Send CRD.
  SendRequest: openApiSendRequest(
    'Exactly one target: included_segments, tag (or filters), include_subscription_ids or include_external_ids (or include_aliases). contents is required unless content_available makes a background push. Every broken rule is one sentence of a 422.',
  ),
  SendResponse: {
    type: 'object',
    required: ['id', 'status', 'sent', 'failed', 'skipped', 'estimate', 'message'],
    properties: {
      id: { type: 'integer' }, status: STATUS, sent: COUNT, failed: COUNT, skipped: COUNT, estimate: COUNT, message: { type: 'string' },
      errors: {
        type: 'object',
        description: "A list send's ids that name no subscribed install of the app (OneSignal's shape); the send goes on to the others, and these are counted skipped.",
        additionalProperties: false,
        properties: {
          invalid_aliases: { type: 'object', additionalProperties: false, properties: { external_id: { type: 'array', items: { type: 'string' } } } },
          invalid_player_ids: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
  Notification: {
    type: 'object',
    description: 'A send: its counters (contract "Stats response body") and what it was, as OneSignal names them.',
    required: Object.keys(stats),
    properties: {
      ...stats,
      // Only when the send was given them.
      name: { type: 'string', description: "The body's name: the send's internal name." },
      custom_data: { type: 'object', description: "The body's custom_data, as it was given." },
    },
  },
  NotificationPage: {
    type: 'object',
    required: ['total_count', 'offset', 'limit', 'notifications'],
    properties: {
      total_count: COUNT,
      offset: COUNT,
      limit: { type: 'integer', minimum: 1, maximum: 50 },
      notifications: { type: 'array', items: { $ref: '#/components/schemas/Notification' } },
    },
  },
  Success: { type: 'object', required: ['success'], properties: { success: { const: true } } },
  SubscriptionCreate: { type: 'object', required: ['token'], properties: subscriptionFields },
  SubscriptionPatch: { type: 'object', properties: subscriptionFields },
  SubscriptionId: { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } },
  Open: {
    type: 'object',
    required: ['app_id', 'subscription_id'],
    properties: { app_id: { type: 'string', format: 'uuid' }, subscription_id: { type: 'string', format: 'uuid' } },
  },
};
