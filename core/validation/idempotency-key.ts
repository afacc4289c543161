// The idempotency key's own rules (contract "Idempotency" 1–2). Whether the key was used before
// is the idempotency store's business, after validation (DECISIONS "Limits": order of checks).
import type { FieldIssue } from '../errors.js';
import { isIdempotencyKey } from '../formats/idempotency-key.js';

export const KEYS_DIFFER = 'The Idempotency-Key header and idempotency_key differ. Send one key.';
export const KEY_FORMAT = 'Use a short idempotency key: letters, numbers, dot, or dash.';
export const KEY_NOT_STRING = 'idempotency_key is a string.';
export const OLDER_NAME_DIFFERS =
  "idempotency_key and external_id differ: external_id is the older name of idempotency_key. Send one key.";
export const OLDER_NAME_NOT_STRING = 'external_id (the older name of idempotency_key) is a string.';

/** The key of the call, from the header or the body field, or undefined when none is given. */
export function readIdempotencyKey(
  newField: unknown,
  header: string | undefined,
  issues: FieldIssue[],
  olderField?: unknown,
): string | undefined {
  const before = issues.length;
  const keyIssue = (message: string) => issues.push({ field: 'idempotency_key', message });
  if (newField !== undefined && typeof newField !== 'string') keyIssue(KEY_NOT_STRING);
  if (olderField !== undefined && typeof olderField !== 'string') issues.push({ field: 'external_id', message: OLDER_NAME_NOT_STRING });
  if (typeof newField === 'string' && typeof olderField === 'string' && newField !== olderField) {
    issues.push({ field: 'external_id', message: OLDER_NAME_DIFFERS });
  }
  // OneSignal's notification `external_id` is the older name of the same key.
  const field = newField ?? olderField;
  const bodyKey = typeof field === 'string' ? field : undefined;
  if (header !== undefined && bodyKey !== undefined && header !== bodyKey) {
    keyIssue(KEYS_DIFFER);
  }
  const keys = [header, bodyKey].filter((k): k is string => k !== undefined);
  if (keys.some((k) => !isIdempotencyKey(k))) keyIssue(KEY_FORMAT);
  return issues.length > before ? undefined : keys[0];
}
