// Components of the OpenAPI document (document.ts): the bodies Herald reads and answers, as JSON
// Schema 2020-12 (OpenAPI 3.1). Field meanings: docs/api.md and the contract.

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

const tag = {
  type: 'object',
  required: ['key', 'relation'],
  properties: {
    field: { const: 'tag' },
    key: { type: 'string' },
    relation: { type: 'string', enum: ['=', '!=', '>', '<', 'exists', 'not_exists'] },
    value: { type: 'string' },
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
  SendRequest: {
    type: 'object',
    description: 'Exactly one target: included_segments, tag (or filters), include_subscription_ids or include_external_ids (or include_aliases). Every broken rule is one sentence of a 422.',
    required: ['contents'],
    properties: {
      app_id: { type: 'string', format: 'uuid' },
      contents: LANGUAGE_MAP,
      headings: LANGUAGE_MAP,
      included_segments: { type: 'array', items: { type: 'string' }, maxItems: 1 },
      tag,
      filters: { type: 'array', items: tag, maxItems: 1 },
      include_subscription_ids: { type: 'array', items: { type: 'string', format: 'uuid' }, maxItems: 500 },
      include_external_ids: { type: 'array', items: { type: 'string' }, maxItems: 500 },
      include_aliases: { type: 'object', properties: { external_id: { type: 'array', items: { type: 'string' }, maxItems: 500 } } },
      send_after: { type: 'string', description: 'RFC 3339 or a date string OneSignal documents; at most 30 days ahead.' },
      delayed_option: { type: 'string', enum: ['timezone'] },
      delivery_time_of_day: { type: 'string', examples: ['9:00AM', '21:45'] },
      throttle_rate_per_minute: { type: 'integer', minimum: 1, maximum: 100000 },
      url: { type: 'string' },
      app_url: { type: 'string' },
      big_picture: { type: 'string' },
      ios_attachments: { type: 'object', additionalProperties: { type: 'string' } },
      data: { type: 'object' },
      buttons: { type: 'array', maxItems: 1, items: { type: 'object', properties: { id: { type: 'string' }, text: { type: 'string' } } } },
      bundle_id: { type: 'string' },
      idempotency_key: { type: 'string', maxLength: 80 },
      ttl: { type: 'integer' },
      priority: { type: 'integer' },
      collapse_id: { type: 'string' },
      ios_badge_type: { type: 'string', enum: ['None', 'SetTo', 'Increase'] },
      ios_badge_count: { type: 'integer' },
    },
  },
  SendResponse: {
    type: 'object',
    required: ['id', 'status', 'sent', 'failed', 'skipped', 'estimate', 'message'],
    properties: { id: { type: 'integer' }, status: STATUS, sent: COUNT, failed: COUNT, skipped: COUNT, estimate: COUNT, message: { type: 'string' } },
  },
  Notification: {
    type: 'object',
    description: 'A send: its counters (contract "Stats response body") and what it was, as OneSignal names them.',
    required: Object.keys(stats),
    properties: stats,
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
