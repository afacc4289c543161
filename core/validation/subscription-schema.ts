// The fields of the app-facing install calls (register and update), checked by the one checker
// (./checker.ts) and published as the OpenAPI request schemas: one definition.
// The sentences of a broken field and the time zone rule live here too, so the NDJSON import
// (core/subscriptions/import.ts), which takes the register call's fields, accepts what it accepts.
import Type, { type TUnsafe } from 'typebox';
import { ANY_INSTALL_TOKEN_SCHEMA, installTokenRule, SUBSCRIPTION_TYPE_SCHEMA, subscriptionTypeRule, type Platform } from '../formats/install-type.js';
import { DEVICE_TOKEN_SCHEMA } from '../formats/device-token.js';
import { FCM_TOKEN_SCHEMA } from '../formats/fcm-token.js';
import { AUTH_HASH_MAX_CHARS } from '../formats/identity-hash.js';
import type { Sentences } from './checker.js';
import { LIMITS } from './limits.js';
import { LANGUAGE_CODE_PATTERN } from '../formats/language-code.js';
import { knownTimeZone } from '../time/zone-clock.js';
import { TAGS_MAX } from '../formats/tags.js';
import { TIME_ZONE_NAME_MAX_CHARS } from '../formats/time-zone-name.js';
import { EXTERNAL_ID_AUTH_HASH_SCHEMA } from '../formats/identity-hash.js';

export const SUBSCRIPTION_FIELDS = {
  // iOSPush (the default) or AndroidPush: which rule the token follows; an install never changes it.
  type: { ...SUBSCRIPTION_TYPE_SCHEMA, description: 'iOSPush (the default) or AndroidPush; an install keeps the type it was registered with.' },
  // Either rule here; the call checks the token by the type (installTokenRule).
  token: ANY_INSTALL_TOKEN_SCHEMA,
  external_id: { type: ['string', 'null'], minLength: 1, maxLength: LIMITS.external_id },
  language: { type: ['string', 'null'], pattern: LANGUAGE_CODE_PATTERN },
  timezone: { type: ['string', 'null'], maxLength: TIME_ZONE_NAME_MAX_CHARS },
  tags: {
    type: 'object',
    maxProperties: TAGS_MAX,
    propertyNames: { maxLength: LIMITS.tag },
    // Values as long as keys, and as a send's tag condition (they had no limit).
    additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength: LIMITS.tag },
  },
  subscribed: { type: 'boolean' },
  // OneSignal's test_type: 1 = a development build (its token works on the sandbox gateway only),
  // 2 = an ad hoc build (production gateway, as Apple signs it); null or absent = the App's.
  test_type: { enum: [1, 2, null] },
  // Identity verification (api/routes/identity.ts): checked by value, not by shape.
  external_id_auth_hash: {
    ...EXTERNAL_ID_AUTH_HASH_SCHEMA,
    description: "Identity verification (docs/api.md): hex HMAC-SHA256 of the external id with the app's identity secret, made by the app's server.",
  },
};

/** The fields as the register and update calls read them (the checker's static type). */
export type InstallBody = Record<string, unknown> & { type?: string; token?: string };
interface InstallSchemas {
  create: TUnsafe<InstallBody>;
  patch: TUnsafe<InstallBody>;
}

/**
 * The register's (`token` required) and the update's schema for an install of `platform`: its
 * token by that platform's rule. Built once each, so the checker compiles each once.
 */
function installSchemas(platform: Platform): InstallSchemas {
  const properties = { ...SUBSCRIPTION_FIELDS, token: platform === 'ios' ? DEVICE_TOKEN_SCHEMA : FCM_TOKEN_SCHEMA };
  return {
    create: Type.Unsafe<InstallBody>({ type: 'object', properties, required: ['token'] }),
    patch: Type.Unsafe<InstallBody>({ type: 'object', properties }),
  };
}

export const INSTALL_SCHEMAS: Readonly<Record<Platform, InstallSchemas>> = { ios: installSchemas('ios'), android: installSchemas('android') };

const longer = (limit: number) => `{field} is longer than ${limit} characters.`;

/** The sentences of a broken install field; `platform`: the install's, for the token's rule. */
function installSentences(platform: Platform): Sentences {
  return {
    'token:required': 'token is required.',
    token: `${installTokenRule(platform, 'token')}.`,
    type: `${subscriptionTypeRule('type')}.`,
    test_type: "test_type must be 1 (development build), 2 (ad hoc build) or null (the App's environment).",
    language: 'language must be a language code such as en or pt-BR.',
    'external_id:maxLength': longer(LIMITS.external_id),
    'timezone:maxLength': longer(TIME_ZONE_NAME_MAX_CHARS),
    'tags:maxLength': longer(LIMITS.tag),
    'external_id_auth_hash:maxLength': longer(AUTH_HASH_MAX_CHARS),
  };
}

export const INSTALL_SENTENCES: Readonly<Record<Platform, Sentences>> = { ios: installSentences('ios'), android: installSentences('android') };

/** Why `timezone` is not one an install may have (the schema bounds it first), or undefined. */
export function checkInstallTimeZone(timezone: unknown): string | undefined {
  if (timezone === undefined || timezone === null || knownTimeZone(timezone as string)) return undefined;
  return 'timezone must be an IANA time zone such as Europe/Paris';
}
