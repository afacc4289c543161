// The bodies of the user and alias calls as @onesignal/node-onesignal 5.18.0 sends them (its User,
// UpdateUserRequest and UserIdentityBody models), bounded by USER_LIMITS. One definition: the
// routes validate with it and the OpenAPI document publishes it (api/openapi/schemas.ts).
import type { ErrorObject } from 'ajv';
import Type from 'typebox';
import type { CreateUserBody, UserSubscriptionBody } from './create-user.js';
import type { PropertiesBody } from './user-store.js';
import { ValidationError } from '../errors.js';
import { checked } from '../validation/checker.js';
import { installTokenRule, platformOf, SUBSCRIPTION_TYPE_SCHEMA, subscriptionTypeRule, TOKEN_BY_TYPE_SCHEMA, type SubscriptionType } from '../formats/install-type.js';
import { LANGUAGE_CODE_PATTERN } from '../formats/language-code.js';
import { knownTimeZone } from '../time/zone-clock.js';
import { USER_LIMITS } from './user-limits.js';
import { ALIAS_LABEL_PATTERN, ALIAS_LABEL_RULE } from '../formats/alias-label.js';

const TAGS = {
  type: 'object',
  maxProperties: USER_LIMITS.tags,
  propertyNames: { minLength: 1, maxLength: USER_LIMITS.tag },
  // "" removes the tag (OneSignal); numbers and booleans are kept as text, as on installs.
  additionalProperties: { type: ['string', 'number', 'boolean'], maxLength: USER_LIMITS.tag },
};

/** The properties Herald keeps; OneSignal's others (lat, country, purchases, …) are refused by name. */
export const PROPERTIES_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    tags: TAGS,
    language: { type: 'string', pattern: LANGUAGE_CODE_PATTERN },
    timezone_id: { type: 'string', minLength: 1, maxLength: USER_LIMITS.timezone_id },
  },
};

/** Aliases to add: label → id, the OneSignal id excepted (the route refuses it by name). */
export const IDENTITY_SCHEMA = {
  type: 'object',
  minProperties: 1,
  maxProperties: USER_LIMITS.aliases,
  propertyNames: { pattern: ALIAS_LABEL_PATTERN },
  additionalProperties: { type: 'string', minLength: 1, maxLength: USER_LIMITS.alias_id },
};

/** An install given in createUser (OneSignal's Subscription model; iOSPush and AndroidPush are served). */
export const USER_SUBSCRIPTION_SCHEMA = {
  type: 'object',
  required: ['type', 'token'],
  properties: {
    type: SUBSCRIPTION_TYPE_SCHEMA,
    token: { type: 'string' },
    enabled: { type: 'boolean' },
    // Apple's gateways only: an Android install's test_type is kept and has no effect.
    test_type: { enum: [1, 2, null] },
  },
  // The token's rule follows the type (core/formats/install-type.ts).
  ...TOKEN_BY_TYPE_SCHEMA,
};

/** createSubscription's body (OneSignal's SubscriptionBody): a field Herald cannot apply is refused by name. */
export const CREATE_SUBSCRIPTION_SCHEMA = {
  type: 'object',
  required: ['subscription'],
  additionalProperties: false,
  properties: { subscription: { ...USER_SUBSCRIPTION_SCHEMA, additionalProperties: false } },
};

/** transferSubscription's body: the one alias of the user the install moves to (onesignal_id too). */
export const TRANSFER_SUBSCRIPTION_SCHEMA = {
  type: 'object',
  required: ['identity'],
  additionalProperties: false,
  properties: { identity: { ...IDENTITY_SCHEMA, maxProperties: 1 } },
};

export const CREATE_USER_SCHEMA = {
  type: 'object',
  properties: {
    properties: PROPERTIES_SCHEMA,
    identity: IDENTITY_SCHEMA,
    subscriptions: { type: 'array', maxItems: USER_LIMITS.subscriptions, items: USER_SUBSCRIPTION_SCHEMA },
  },
};

export const UPDATE_USER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    properties: PROPERTIES_SCHEMA,
    // Accepted and without effect: Herald keeps no device metadata beyond the install's fields.
    refresh_device_metadata: { type: 'boolean' },
  },
};

export const IDENTITY_BODY_SCHEMA = {
  type: 'object',
  required: ['identity'],
  properties: { identity: IDENTITY_SCHEMA },
};

const SCHEMAS = {
  createUser: CREATE_USER_SCHEMA,
  updateUser: UPDATE_USER_SCHEMA,
  identity: IDENTITY_BODY_SCHEMA,
  createSubscription: CREATE_SUBSCRIPTION_SCHEMA,
  transferSubscription: TRANSFER_SUBSCRIPTION_SCHEMA,
};

/** Throws a 422 naming each broken field unless `body` fits the call's schema (the one checker). */
export function checkBody(which: keyof typeof SCHEMAS, body: unknown): void {
  checked(USER_BODIES[which], body, { '*': (path, e) => userSentence(path, e, body) });
  // The install calls' rule (core/validation/subscription-schema.ts): the zone is copied onto
  // every install of the user, so one no runtime knows is refused here as it is there.
  const zone = (body as { properties?: { timezone_id?: string } }).properties?.timezone_id;
  if (zone !== undefined && !knownTimeZone(zone)) {
    throw new ValidationError({ field: 'properties.timezone_id', message: 'properties.timezone_id must be an IANA time zone such as Europe/Paris.' });
  }
}

/** The value at an ajv instance path (`/subscriptions/0`) of the body. */
function valueAt(body: unknown, path: string): unknown {
  return path.split('/').slice(1).reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), body);
}

/** The user calls' sentence for the field at `at` broken by `e` (a token's rule is its install type's, read from the body). */
function userSentence(at: string, e: ErrorObject, body: unknown): string | undefined {
  const params = e.params as Record<string, unknown>;
  // A bad key (propertyNames): ajv reports the key's own failure first, with the key on the error.
  const key = (e as { propertyName?: string }).propertyName ?? (e.keyword === 'propertyNames' ? params.propertyName : undefined);
  if (key !== undefined) {
    const what = at === 'identity' ? `an alias label (${ALIAS_LABEL_RULE})` : `a key of 1 to ${USER_LIMITS.tag} characters`;
    return `${at} has a key that is not ${what}: ${String(key).slice(0, 80)}.`;
  }
  switch (e.keyword) {
    case 'required':
      return `${at} is required.`;
    case 'additionalProperties':
      return `${at} is not a field Herald keeps (docs/api.md "Users").`;
    case 'maxProperties':
      return `${at} has more than ${String(params.limit)} ${params.limit === 1 ? 'entry' : 'entries'}.`;
    case 'minProperties':
      return `${at} names no alias.`;
    case 'maxItems':
      return `${at} has more than ${String(params.limit)} entries.`;
    case 'maxLength':
      return `${at} is longer than ${String(params.limit)} characters.`;
    case 'pattern':
      if (at.endsWith('.token')) {
        const type = (valueAt(body, e.instancePath.replace(/\/token$/, '')) as { type?: SubscriptionType } | undefined)?.type;
        return `${installTokenRule(platformOf(type), at)}.`;
      }
      if (at.endsWith('language')) return `${at} must be a language code such as en or pt-BR.`;
      return undefined;
    case 'enum':
      if (at.endsWith('.type')) return `${subscriptionTypeRule(at)}.`;
      if (at.endsWith('test_type')) return `${at} must be 1 (development build), 2 (ad hoc build) or null (the App's environment).`;
      return undefined;
    default:
      return undefined;
  }
}

/**
 * The bodies as the calls' declarations type them (api/routes/users.ts and the rest): the same
 * schemas, read by TypeScript as the shapes the handlers take. Checked by checkBody above, in the
 * handler, with the one checker (core/validation/checker.ts): these calls' sentences (pinned by
 * test/api/users.test.ts and user-subscriptions.test.ts) differ by the rule a field breaks, and a
 * token's by the install type beside it.
 */
export const USER_BODIES = {
  createUser: Type.Unsafe<CreateUserBody>(CREATE_USER_SCHEMA),
  updateUser: Type.Unsafe<{ properties?: PropertiesBody; refresh_device_metadata?: boolean }>(UPDATE_USER_SCHEMA),
  identity: Type.Unsafe<{ identity: Record<string, string> }>(IDENTITY_BODY_SCHEMA),
  createSubscription: Type.Unsafe<{ subscription: UserSubscriptionBody }>(CREATE_SUBSCRIPTION_SCHEMA),
  transferSubscription: Type.Unsafe<{ identity: Record<string, string> }>(TRANSFER_SUBSCRIPTION_SCHEMA),
};
