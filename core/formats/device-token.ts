// The one rule for an APNs token the api accepts: an install's device token, a Live Activity's
// update token, a push-to-start token. Apple documents device tokens as opaque data of variable
// length that an app must not assume the size of (UIApplicationDelegate's
// didRegisterForRemoteNotificationsWithDeviceToken); alert tokens are 32 bytes today, Live
// Activity tokens are longer. We accept 8 to 200 hex digits, i.e. up to 100 bytes, in either case
// (stored lowercase), with room above today's lengths. Every
// check reads it from here: the install calls' schema, the Live Activity token calls, the
// OpenAPI document, the NDJSON import and the simulator. The transport has no token rule of its
// own: it carries any value HTTP/2 can (core/apns/field-values.ts). docs/api.md "Limits".

export const DEVICE_TOKEN_MIN_HEX = 8;
export const DEVICE_TOKEN_MAX_HEX = 200;

/** The JSON Schema / RegExp source: hex digits of either case, 8 to 200 of them. */
export const DEVICE_TOKEN_PATTERN = `^[0-9a-fA-F]{${DEVICE_TOKEN_MIN_HEX},${DEVICE_TOKEN_MAX_HEX}}$`;
export const DEVICE_TOKEN = new RegExp(DEVICE_TOKEN_PATTERN);

/** The JSON Schema of a token field (ajv and the OpenAPI document). */
export const DEVICE_TOKEN_SCHEMA = { type: 'string', pattern: DEVICE_TOKEN_PATTERN } as const;

export function isDeviceToken(value: unknown): value is string {
  return typeof value === 'string' && DEVICE_TOKEN.test(value);
}

/**
 * The sentence a refused token gets, naming its field (`token`, `push_token`, `activity_token`)
 * and what it is; no final period, so a line-numbered import problem reads the same.
 */
export function deviceTokenRule(field: string, what = 'the APNs device token'): string {
  return `${field} must be ${what} in hex, ${DEVICE_TOKEN_MIN_HEX} to ${DEVICE_TOKEN_MAX_HEX} digits (0-9, a-f)`;
}
