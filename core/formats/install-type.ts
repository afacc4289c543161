// The two kinds of install (issue 39 point 4): OneSignal's subscription `type` (iOSPush,
// AndroidPush), the stored `subscriptions.platform` ('ios', 'android', migration 071) and the
// token rule of each. An APNs token is hex, stored lowercase (device-token.ts); an FCM token is
// case-sensitive and kept as given (fcm-token.ts). Every install call reads these: the user calls,
// the app-facing registration, the import, the export, the OpenAPI document and v1's players.
import { DEVICE_TOKEN_SCHEMA, deviceTokenRule, isDeviceToken } from './device-token.js';
import { FCM_TOKEN_SCHEMA, fcmTokenRule, isFcmToken } from './fcm-token.js';

/** The stored platform; the same union as core/send-model's `Platform` (a send's isIos/isAndroid), which reads formats, not the reverse. */
export type Platform = 'ios' | 'android';

/** OneSignal's subscription types Herald delivers to, in the order its documents list them. */
export const SUBSCRIPTION_TYPES = ['iOSPush', 'AndroidPush'] as const;
export type SubscriptionType = (typeof SUBSCRIPTION_TYPES)[number];

export const SUBSCRIPTION_TYPE_SCHEMA = { enum: [...SUBSCRIPTION_TYPES] } as const;

export const PLATFORMS: readonly Platform[] = ['ios', 'android'];

const PLATFORM_OF_TYPE: Readonly<Record<SubscriptionType, Platform>> = { iOSPush: 'ios', AndroidPush: 'android' };
const TYPE_OF_PLATFORM: Readonly<Record<Platform, SubscriptionType>> = { ios: 'iOSPush', android: 'AndroidPush' };

/** The stored platform of a subscription type; ios when absent (the calls' default) or not one Herald serves (refused by its own rule). */
export function platformOf(type: SubscriptionType | undefined): Platform {
  return (Object.hasOwn(PLATFORM_OF_TYPE, type ?? '') ? PLATFORM_OF_TYPE[type!] : undefined) ?? 'ios';
}

/** The type an answer shows for a stored platform. */
export function typeOf(platform: Platform): SubscriptionType {
  return TYPE_OF_PLATFORM[platform];
}

export const PLATFORM_SCHEMA = { enum: [...PLATFORMS] } as const;

/** The sentence a type Herald does not deliver to gets (email, SMS, web push…). */
export function subscriptionTypeRule(field: string): string {
  return `${field} must be iOSPush or AndroidPush: Herald delivers to iOS and Android installs only`;
}

/** The token as stored: an APNs token lowercase (one spelling per device), an FCM token as given. */
export function storedToken(platform: Platform, token: string): string {
  return platform === 'ios' ? token.toLowerCase() : token;
}

export function isInstallToken(platform: Platform, token: unknown): token is string {
  return platform === 'ios' ? isDeviceToken(token) : isFcmToken(token);
}

/** The sentence a refused token of that platform gets, naming its field; no final period. */
export function installTokenRule(platform: Platform, field: string): string {
  return platform === 'ios' ? deviceTokenRule(field) : fcmTokenRule(field);
}

/**
 * A JSON Schema piece checking `token` by the object's `type`: AndroidPush takes an FCM token,
 * iOSPush or no type (the calls' default) an APNs one. Spread into an object schema; the type is
 * checked first (allOf runs in order), so an unknown type is named as such, not as a bad token. A
 * refused token is a `pattern` error at `/…/token` whichever rule refused it.
 */
export const TOKEN_BY_TYPE_SCHEMA = {
  allOf: [
    { properties: { type: SUBSCRIPTION_TYPE_SCHEMA } },
    {
      if: { required: ['type'], properties: { type: { const: 'AndroidPush' } } },
      then: { properties: { token: FCM_TOKEN_SCHEMA } },
      else: { properties: { token: DEVICE_TOKEN_SCHEMA } },
    },
  ],
} as const;

/** The token field's schema for the OpenAPI document: either rule (the type says which). */
export const ANY_INSTALL_TOKEN_SCHEMA = {
  type: 'string',
  description: 'iOSPush: the APNs device token, 8 to 200 hex digits (stored lowercase). AndroidPush: the FCM registration token, 1 to 4,096 characters of A-Z, a-z, 0-9, _, :, . and - (kept as given).',
  anyOf: [DEVICE_TOKEN_SCHEMA, FCM_TOKEN_SCHEMA],
} as const;
