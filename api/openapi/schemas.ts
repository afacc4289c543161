// Components of the OpenAPI document (document.ts): the bodies Herald reads and answers, as JSON
// Schema 2020-12 (OpenAPI 3.1). Field meanings: docs/api.md and the contract.
import { openApiSendRequest } from '../../core/validation/schema-views.js';
import { StartLiveActivityBodySchema, UpdateLiveActivityBodySchema } from '../../core/validation/live-activity-schema.js';
import { PLATFORM_SCHEMA, TOKEN_BY_TYPE_SCHEMA } from '../../core/formats/install-type.js';
import { SUBSCRIPTION_FIELDS } from '../../core/validation/subscription-schema.js';
import { SEND_STATUSES } from '../../core/send-model/states.js';
import { SEND_SOURCES } from '../../core/formats/send-source.js';
import { USER_SCHEMAS } from './user-schemas.js';
import { SEGMENT_SCHEMAS } from './segment-schemas.js';
import { TEMPLATE_SCHEMAS } from './template-schemas.js';
import { PLAYER_SCHEMAS } from './player-schemas.js';

const STATUS = { type: 'string', enum: SEND_STATUSES };
const COUNT = { type: 'integer', minimum: 0 };
const LANGUAGE_MAP = { type: 'object', additionalProperties: { type: 'string' } };
const UNIX_SECONDS = { type: 'integer', description: 'Unix time in seconds.' };
/** OneSignal's DeliveryData for one platform, `received` absent. */
const PLATFORM_COUNTS = {
  type: 'object',
  required: ['successful', 'failed', 'errored', 'converted'],
  additionalProperties: false,
  properties: { successful: COUNT, failed: COUNT, errored: COUNT, converted: COUNT },
};

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
  platform_delivery_stats: {
    type: 'object',
    description: "OneSignal's per-platform counts, Herald's own counters split by the platform of each install. `received` is absent: Herald has no confirmed delivery.",
    required: ['ios', 'android'],
    properties: { ios: PLATFORM_COUNTS, android: PLATFORM_COUNTS },
  },
  contents: LANGUAGE_MAP,
  headings: LANGUAGE_MAP,
  source: { type: 'string', enum: SEND_SOURCES },
  message: { type: 'string' },
  queued_at: UNIX_SECONDS,
  send_after: UNIX_SECONDS,
  completed_at: { type: ['integer', 'null'], description: 'Unix seconds when the send ended; null while it runs.' },
  throttle_rate_per_minute: { type: ['integer', 'null'] },
  canceled: { type: 'boolean' },
};

const subscriptionFields = SUBSCRIPTION_FIELDS;

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
    'Exactly one target: included_segments, tag (or filters), include_subscription_ids or include_external_ids (or include_aliases). contents is required unless the push shows nothing (content_available makes a background push; apns_push_type_override voip, location, complication, pushtotalk, widgets or controls refuses it). Every broken rule is one sentence of a 422.',
  ),
  // The Live Activity bodies' one schema (core/validation/live-activity-schema.ts).
  StartLiveActivityRequest: openApiSendRequest(
    "OneSignal's StartLiveActivityRequest: one audience as in sends, activity_id, event_attributes, event_updates and the alert (contents, required; headings). Installs without a push-to-start token of the type are left out.",
    StartLiveActivityBodySchema,
  ),
  UpdateLiveActivityRequest: openApiSendRequest(
    "OneSignal's UpdateLiveActivityRequest: event update or end, event_updates, an optional alert (contents, headings, ios_sound), stale_date, dismissal_date (end only), priority 5 or 10 (default 10), ios_relevance_score.",
    UpdateLiveActivityBodySchema,
  ),
  StartLiveActivityResponse: {
    type: 'object',
    required: ['notification_id'],
    properties: { notification_id: { type: 'string', description: 'The send id, as text (the client types it so).' } },
  },
  UpdateLiveActivityResponse: {
    type: 'object',
    required: ['id'],
    properties: { id: { type: 'string', description: 'The send id, as text (the client types it so).' } },
  },
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
          invalid_aliases: { type: 'object', description: 'By alias label (external_id, onesignal_id or a custom label): the ids no subscribed install has.', additionalProperties: { type: 'array', items: { type: 'string' } } },
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
      live_activity: {
        type: 'object',
        description: 'A Live Activity push (kind live_activity): its event and activity.',
        required: ['event', 'activity_id'],
        properties: {
          event: { type: 'string', enum: ['start', 'update', 'end'] },
          activity_id: { type: 'string' },
          activity_type: { type: 'string' },
          broadcast: {
            type: 'object',
            description: "An update or end sent to the activity's broadcast channel (issue 29): Apple accepted the one request, or it failed (reason) and only the tokens were sent. Absent: no channel, per token only. The tokens' part is total_recipients, sent and failed.",
            required: ['status'],
            additionalProperties: false,
            properties: { status: { type: 'string', enum: ['accepted', 'failed'] }, reason: { type: 'string', description: "Apple's reason, or the client's (ConnectionError, Timeout, …)." } },
          },
        },
      },
    },
  },
  LiveActivityChannel: {
    type: 'object',
    description: "A Live Activity's broadcast channel, for an app that starts the activity itself (ActivityKit's pushType .channel(id), iOS 18).",
    required: ['activity_id', 'channel_id'],
    additionalProperties: false,
    properties: {
      activity_id: { type: 'string' },
      channel_id: { type: ['string', 'null'], description: "Apple's apns-channel-id; null: no channel for this install (another environment's build, or channel management failed): register the activity's update token instead." },
    },
  },
  NotificationPage: {
    type: 'object',
    required: ['total_count', 'offset', 'limit', 'notifications'],
    properties: {
      total_count: COUNT,
      offset: COUNT,
      limit: { type: 'integer', minimum: 1, maximum: 50 },
      time_offset: { type: 'string', description: 'With time_offset: the parameter as given.' },
      next_time_offset: { type: 'string', description: 'With time_offset: the time_offset of the next page (the same as given when this page is empty).' },
      notifications: { type: 'array', items: { $ref: '#/components/schemas/Notification' } },
    },
  },
  Success: { type: 'object', required: ['success'], properties: { success: { const: true } } },
  SubscriptionCreate: { type: 'object', required: ['token'], properties: subscriptionFields, ...TOKEN_BY_TYPE_SCHEMA },
  SubscriptionPatch: { type: 'object', properties: subscriptionFields },
  Subscription: {
    type: 'object',
    required: ['id', 'token', 'subscribed', 'unsubscribed_reason', 'environment', 'platform', 'registered_at'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      token: { type: 'string' },
      external_id: { type: ['string', 'null'] },
      language: { type: ['string', 'null'] },
      timezone: { type: ['string', 'null'] },
      tags: { type: 'object', additionalProperties: { type: 'string' } },
      subscribed: { type: 'boolean' },
      unsubscribed_reason: {
        type: ['string', 'null'],
        description: "Why not subscribed: `app` (the SDK said so) or Apple's reason (Unregistered, BadDeviceToken, DeviceTokenNotForTopic); null when subscribed.",
      },
      environment: { type: ['string', 'null'], enum: ['production', 'sandbox', null], description: "The gateway its token belongs to (from test_type); null = the App's environment." },
      platform: { ...PLATFORM_SCHEMA, description: 'ios (iOSPush, an APNs token) or android (AndroidPush, an FCM token); an install keeps it.' },
      registered_at: { type: 'string', format: 'date-time', description: 'The last time the SDK registered the token.' },
      last_active: { type: ['string', 'null'], format: 'date-time' },
      created_at: { type: 'string', format: 'date-time' },
    },
  },
  SubscriptionId: { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } },
  ...USER_SCHEMAS,
  ...SEGMENT_SCHEMAS,
  ...TEMPLATE_SCHEMAS,
  ...PLAYER_SCHEMAS,
};
