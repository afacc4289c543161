// The user and alias calls' bodies in the OpenAPI document (issue 27): the requests are the
// validators' own schemas (core/users/user-schema.ts); the answers are OneSignal's models as
// Herald fills them.
import { CREATE_SUBSCRIPTION_SCHEMA, CREATE_USER_SCHEMA, IDENTITY_BODY_SCHEMA, TRANSFER_SUBSCRIPTION_SCHEMA, UPDATE_USER_SCHEMA } from '../../core/users/user-schema.js';
import { SUBSCRIPTION_BODY_SCHEMA } from '../../core/subscriptions/subscription-body.js';
import { SUBSCRIPTION_TYPE_SCHEMA } from '../../core/formats/install-type.js';

const UNIX_SECONDS = { type: 'integer', description: 'Unix time in seconds.' };
const IDENTITY = {
  type: 'object',
  required: ['onesignal_id'],
  additionalProperties: { type: 'string' },
  description: 'The aliases by label, with the OneSignal id under onesignal_id.',
};
const PROPERTIES = {
  type: 'object',
  required: ['tags', 'first_active', 'last_active'],
  properties: {
    tags: { type: 'object', additionalProperties: { type: 'string' } },
    language: { type: 'string' },
    timezone_id: { type: 'string' },
    first_active: UNIX_SECONDS,
    last_active: UNIX_SECONDS,
  },
};

const USER_SUBSCRIPTION = {
  type: 'object',
  required: ['id', 'type', 'token', 'enabled'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: SUBSCRIPTION_TYPE_SCHEMA,
    token: { type: 'string', description: 'iOSPush: the APNs token, lowercase hex. AndroidPush: the FCM registration token as given.' },
    enabled: { type: 'boolean' },
    test_type: { type: 'integer', description: '1: a development build (sandbox gateway).' },
  },
};

export const USER_SCHEMAS = {
  UserSubscriptionCreate: { ...CREATE_SUBSCRIPTION_SCHEMA, description: "createSubscription's body (OneSignal's SubscriptionBody); a field Herald cannot apply is a 422 naming it." },
  UserSubscription: { type: 'object', required: ['subscription'], properties: { subscription: USER_SUBSCRIPTION } },
  TransferSubscriptionBody: { ...TRANSFER_SUBSCRIPTION_SCHEMA, description: 'The one alias (onesignal_id too) of the user the install moves to.' },
  UserCreate: CREATE_USER_SCHEMA,
  SubscriptionBody: { ...SUBSCRIPTION_BODY_SCHEMA, description: "The official client's updateSubscription body (OneSignal's SubscriptionBody)." },
  UserUpdate: UPDATE_USER_SCHEMA,
  UserIdentityBody: { ...IDENTITY_BODY_SCHEMA, description: 'Aliases to add: label → id.' },
  User: {
    type: 'object',
    required: ['properties', 'identity', 'subscriptions'],
    properties: {
      properties: PROPERTIES,
      identity: IDENTITY,
      subscriptions: { type: 'array', items: USER_SUBSCRIPTION },
    },
  },
  UserProperties: { type: 'object', required: ['properties'], properties: { properties: PROPERTIES } },
  UserIdentity: { type: 'object', required: ['identity'], properties: { identity: IDENTITY } },
  UserErased: {
    type: 'object',
    required: ['success', 'erased'],
    properties: {
      success: { const: true },
      erased: {
        type: 'object',
        description: 'What went, for good, before this answer (docs/security.md "Data map").',
        required: ['installs', 'aliases', 'live_activity_tokens', 'push_type_tokens', 'opens', 'sends_scrubbed'],
        properties: {
          installs: { type: 'integer' },
          aliases: { type: 'integer' },
          live_activity_tokens: { type: 'integer' },
          push_type_tokens: { type: 'integer', description: "The installs' VoIP, location, complication, push-to-talk, widgets and controls tokens." },
          opens: { type: 'integer' },
          sends_scrubbed: { type: 'integer', description: 'List sends whose ids named the user, the ids taken out.' },
        },
      },
    },
  },
  CreateUserConflict: {
    type: 'object',
    required: ['errors'],
    description: "OneSignal's CreateUserConflictResponse.",
    properties: {
      errors: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            code: { type: 'string' },
            title: { type: 'string' },
            meta: { type: 'object', properties: { conflicting_aliases: { type: 'object', additionalProperties: { type: 'string' } } } },
          },
        },
      },
    },
  },
};
