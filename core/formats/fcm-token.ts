// The one rule for an FCM registration token (issue 39 point 4): Google documents it as an opaque
// string; tokens seen in the field are about 150-170 characters of base64url with a colon. We
// accept 1 to 4,096 characters of [A-Za-z0-9_:.-] (kept as given: FCM tokens are case-sensitive),
// so the longest token a device could hand over still reaches the gateway. Every check reads it
// from here: the install calls, the v1 players calls, the import, the OpenAPI document, fcm-sim.

export const FCM_TOKEN_MAX = 4096;

export const FCM_TOKEN_PATTERN = `^[A-Za-z0-9_:.-]{1,${FCM_TOKEN_MAX}}$`;
export const FCM_TOKEN = new RegExp(FCM_TOKEN_PATTERN);

/** The JSON Schema of an FCM token field (ajv and the OpenAPI document). */
export const FCM_TOKEN_SCHEMA = { type: 'string', pattern: FCM_TOKEN_PATTERN } as const;

export function isFcmToken(value: unknown): value is string {
  return typeof value === 'string' && FCM_TOKEN.test(value);
}

/** The sentence a refused Android token gets, naming its field. */
export function fcmTokenRule(field: string): string {
  return `${field} must be the FCM registration token, 1 to ${FCM_TOKEN_MAX} characters of A-Z, a-z, 0-9, _, :, . and -`;
}
