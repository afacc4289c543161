// An idempotency key's format (contract "Idempotency"; the Idempotency-Key header, the body's
// `idempotency_key` and its older name `external_id`): 1 to 80 letters, digits, `_`, `.` or `-`.
// Whether a key was used before is the idempotency store's business (core/idempotency/).

export const IDEMPOTENCY_KEY_MAX_LENGTH = 80;
/** The JSON Schema / OpenAPI `pattern` (the length is `maxLength`). */
export const IDEMPOTENCY_KEY_PATTERN = '^[A-Za-z0-9_.-]+$';
/** The header's and the body field's schema. */
export const IDEMPOTENCY_KEY_SCHEMA = { type: 'string', maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: IDEMPOTENCY_KEY_PATTERN } as const;

const KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** Whether `text` is a well-formed idempotency key. */
export function isIdempotencyKey(text: string): boolean {
  return text.length <= IDEMPOTENCY_KEY_MAX_LENGTH && KEY.test(text);
}
