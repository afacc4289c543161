// The body of OneSignal's v1 device calls (POST /players, PUT /players/{id}, on_session), read into
// the fields of an install (issue 38 point 1; docs/api.md "OneSignal's v1 device calls"). One
// definition: the one checker (core/validation/checker.ts) holds bodies to PLAYER_SCHEMA with the
// sentences below, and the OpenAPI document publishes it.
// Herald keeps what it has a column for (token, platform, language, time zone, tags, external id,
// subscription, gateway, session count, time and amount spent); the other v1 fields (game_version,
// device_model, device_os, ad_id, sdk, badge_count, lat, long, country, ip, …) are accepted,
// bounded by the body's size, and not kept.
import Type from 'typebox';
import { ValidationError } from '../errors.js';
import { deviceTokenRule, isDeviceToken } from '../formats/device-token.js';
import { fcmTokenRule, isFcmToken } from '../formats/fcm-token.js';
import { EXTERNAL_ID_AUTH_HASH_SCHEMA } from '../formats/identity-hash.js';
import { LANGUAGE_CODE_PATTERN } from '../formats/language-code.js';
import { TAGS_MAX } from '../formats/tags.js';
import { TIME_ZONE_NAME_MAX_CHARS } from '../formats/time-zone-name.js';
import { LIMITS } from '../validation/limits.js';
import { checked } from '../validation/checker.js';
import { checkInstallTimeZone } from '../validation/subscription-schema.js';
import { TEST_TYPE_ENVIRONMENT, type SubscriptionFields } from './subscription-store.js';
import { zoneOfOffset, OFFSET_MAX_SECONDS, OFFSET_MIN_SECONDS } from './player-time-zone.js';

export type Platform = 'ios' | 'android';

/** OneSignal's device_type of each platform Herald delivers to. */
export const DEVICE_TYPES: Readonly<Record<number, Platform>> = { 0: 'ios', 1: 'android' };
export const DEVICE_TYPE_OF: Readonly<Record<Platform, number>> = { ios: 0, android: 1 };
/** OneSignal's device types of channels Herald has not (11 email, 14 SMS). */
const EMAIL_OR_SMS = new Set([11, 14]);

/** At most this: the SDK reports one launch at a time; an import carries a device's whole count. */
export const SESSION_COUNT_MAX = 2_147_483_647;
/** Seconds (about 68 years): the playtime an import may carry, the sum the column may reach. */
export const SESSION_TIME_MAX = 2_147_483_647;
export const AMOUNT_MAX = 1_000_000_000;

export const PLAYER_SCHEMA = {
  type: 'object',
  properties: {
    app_id: { type: 'string', maxLength: 64, description: 'The App ID (with a REST key: the key\'s app; another app\'s id is a 403).' },
    device_type: { type: 'integer', description: '0 iOS (APNs), 1 Android (FCM); Herald delivers to no other.' },
    identifier: { type: 'string', maxLength: 4096, description: 'The push token: APNs hex for device_type 0, the FCM registration token for 1.' },
    language: { type: ['string', 'null'], pattern: LANGUAGE_CODE_PATTERN },
    timezone: { type: ['integer', 'null'], minimum: OFFSET_MIN_SECONDS, maximum: OFFSET_MAX_SECONDS, description: 'Seconds east of UTC; kept as the time zone of that offset (docs/api.md).' },
    timezone_id: { type: ['string', 'null'], maxLength: TIME_ZONE_NAME_MAX_CHARS, description: 'An IANA time zone; preferred to timezone when both are given.' },
    tags: {
      type: 'object',
      maxProperties: TAGS_MAX,
      propertyNames: { maxLength: LIMITS.tag },
      additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength: LIMITS.tag },
      description: 'Tag key → value; "" or null removes the tag.',
    },
    external_user_id: { type: ['string', 'null'], maxLength: LIMITS.external_id, description: '"" or null removes it.' },
    external_user_id_auth_hash: EXTERNAL_ID_AUTH_HASH_SCHEMA,
    notification_types: { type: 'integer', minimum: -2_147_483_648, maximum: 2_147_483_647, description: '1 (or any positive) subscribed; -2 (or any other value ≤ 0) unsubscribed.' },
    test_type: { enum: [1, 2, null], description: '1 development build (sandbox gateway), 2 ad hoc (production).' },
    session_count: { type: 'integer', minimum: 0, maximum: SESSION_COUNT_MAX },
    playtime: { type: 'integer', minimum: 0, maximum: SESSION_TIME_MAX, description: 'Seconds in the app.' },
    amount_spent: { type: ['number', 'string'], maxLength: 32, description: 'The sum of purchases, a number or its text.' },
  },
} as const;

/** PLAYER_SCHEMA as the checker and the calls' declarations take it: read by readPlayerBody. */
export const PLAYER_BODY = Type.Unsafe<Record<string, unknown>>(PLAYER_SCHEMA);

/** What a v1 body asks of an install. */
export interface PlayerChange {
  fields: SubscriptionFields;
  /** The platform device_type names; undefined when the body names none. */
  platform?: Platform;
  /** Counters an import or a registration sets outright (session_count, playtime, amount_spent). */
  counters: { session_count?: number; session_time?: number; amount_spent?: number };
  /** The identity hash, under the name the install calls' check reads (api/routes/identity.ts). */
  identityBody: Record<string, unknown>;
}

const longer = (limit: number) => `{field} is longer than ${limit} characters.`;

/** The sentences of a broken v1 field (the others: the checker's own). */
const PLAYER_SENTENCES = {
  language: 'language must be a language code such as en or pt-BR.',
  test_type: "test_type must be 1 (development build), 2 (ad hoc build) or null (the App's environment).",
  timezone: `timezone must be a whole number of seconds east of UTC, ${OFFSET_MIN_SECONDS} to ${OFFSET_MAX_SECONDS}.`,
  ...Object.fromEntries(
    Object.entries(PLAYER_SCHEMA.properties).flatMap(([field, schema]) => ('maxLength' in schema ? [[`${field}:maxLength`, longer(schema.maxLength)]] : [])),
  ),
  'tags:maxLength': longer(LIMITS.tag),
  'tags:maxProperties': `tags holds more than ${TAGS_MAX} entries.`,
};

/** A refused device_type: what Herald delivers to, and what to do. */
export function deviceTypeProblem(type: unknown): string | undefined {
  if (typeof type === 'number' && DEVICE_TYPES[type] !== undefined) return undefined;
  if (typeof type !== 'number') return 'device_type must be a number: 0 iOS or 1 Android.';
  if (EMAIL_OR_SMS.has(type)) return `device_type ${type}: Herald sends push only; email and SMS are not part of Herald.`;
  return `device_type ${type}: Herald delivers to iOS (device_type 0) and Android (device_type 1) only.`;
}

/** Throws a 422 naming the field unless `token` is one of `platform`. */
export function checkIdentifier(token: unknown, platform: Platform): asserts token is string {
  const ok = platform === 'ios' ? isDeviceToken(token) : isFcmToken(token);
  if (!ok) {
    const rule = platform === 'ios' ? deviceTokenRule('identifier') : fcmTokenRule('identifier');
    throw new ValidationError({ field: 'identifier', message: `${rule}.` });
  }
}

function amount(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n) || n < 0 || n > AMOUNT_MAX) throw new ValidationError({ field: 'amount_spent', message: `amount_spent must be a number from 0 to ${AMOUNT_MAX}.` });
  return Math.round(n * 100) / 100;
}

/**
 * Reads a v1 body (422 naming each broken field). `platform`: the install's (an update) or
 * undefined (a registration: device_type names it). The token is checked by that platform's rule
 * and kept as given for Android (FCM tokens are case-sensitive), lowercase for APNs.
 */
export function readPlayerBody(body: Record<string, unknown>, platform: Platform | undefined): PlayerChange {
  checked(PLAYER_BODY, body, PLAYER_SENTENCES);
  const change: PlayerChange = { fields: {}, counters: {}, identityBody: {} };
  if (body.device_type !== undefined) {
    const refused = deviceTypeProblem(body.device_type);
    if (refused) throw new ValidationError({ field: 'device_type', message: refused });
    change.platform = DEVICE_TYPES[body.device_type as number];
    if (platform !== undefined && change.platform !== platform) {
      throw new ValidationError({ field: 'device_type', message: 'device_type cannot change: this player is another platform\'s; register the new device with POST /players.' });
    }
  }
  const on = change.platform ?? platform;
  const { fields } = change;
  if (body.identifier !== undefined) {
    if (on === undefined) throw new ValidationError({ field: 'device_type', message: 'device_type is required: 0 iOS or 1 Android.' });
    checkIdentifier(body.identifier, on);
    fields.token = on === 'ios' ? body.identifier.toLowerCase() : body.identifier;
  }
  if ('language' in body) fields.language = body.language as string | null;
  readZone(body, fields);
  if (body.tags !== undefined) {
    fields.tags = Object.fromEntries(Object.entries(body.tags as Record<string, unknown>).map(([k, v]) => [k, v === null || v === '' ? null : String(v)]));
  }
  if ('external_user_id' in body) fields.external_id = body.external_user_id === '' ? null : (body.external_user_id as string | null);
  if (typeof body.notification_types === 'number') fields.subscribed = body.notification_types > 0;
  if ('test_type' in body) fields.environment = TEST_TYPE_ENVIRONMENT[String(body.test_type)] ?? null;
  if (typeof body.session_count === 'number') change.counters.session_count = body.session_count;
  if (typeof body.playtime === 'number') change.counters.session_time = body.playtime;
  if (body.amount_spent !== undefined) change.counters.amount_spent = amount(body.amount_spent);
  if (typeof fields.external_id === 'string') change.identityBody.external_id = fields.external_id;
  if (body.external_user_id_auth_hash !== undefined) change.identityBody.external_id_auth_hash = body.external_user_id_auth_hash;
  return change;
}

/** timezone_id (an IANA name) wins; else timezone's seconds, kept as the zone of that offset. */
function readZone(body: Record<string, unknown>, fields: SubscriptionFields): void {
  if (body.timezone_id !== undefined) {
    const zoneProblem = checkInstallTimeZone(body.timezone_id);
    if (zoneProblem) throw new ValidationError({ field: 'timezone_id', message: `${zoneProblem.replace(/^timezone/, 'timezone_id')}.` });
    fields.timezone = body.timezone_id as string | null;
    return;
  }
  if (body.timezone === null) fields.timezone = null;
  else if (typeof body.timezone === 'number') fields.timezone = zoneOfOffset(body.timezone);
}
