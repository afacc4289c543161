// A UUID written as text (subscription, app and key ids, Apple's apns-id): 8-4-4-4-12 hex digits,
// either case, as PostgreSQL's uuid type reads them (ids are stored and answered lowercase). The
// one pattern for every check: a function for code, a pattern string for the JSON Schemas.

/** The JSON Schema / OpenAPI `pattern`. */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
/** Its length in characters (a schema's `maxLength`). */
export const UUID_LENGTH = 36;

const UUID = new RegExp(UUID_PATTERN);

/** Whether `text` is a UUID (either case). */
export function isUuid(text: string): boolean {
  return UUID.test(text);
}
