// An FCM answer (or its absence) as an FcmResult: the one place that reads FCM's error bodies,
// {"error": {"code", "message", "status", "details": [{"@type": "...FcmError", "errorCode"}]}},
// and Retry-After.
import { parseRetryAfter } from '../events/post.js';
import type { FcmResult } from './types.js';
import type { PoolOutcome } from './pool.js';

const FCM_ERROR_TYPE = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';

/** details[].errorCode of the FcmError, else the error's status (e.g. PERMISSION_DENIED, UNAUTHENTICATED). */
export function errorCodeOf(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const error = (parsed as { error?: { status?: unknown; details?: unknown } } | null)?.error;
  if (!error || typeof error !== 'object') return undefined;
  if (Array.isArray(error.details)) {
    for (const d of error.details as Array<Record<string, unknown>>) {
      if (d && d['@type'] === FCM_ERROR_TYPE && typeof d.errorCode === 'string') return d.errorCode;
    }
  }
  return typeof error.status === 'string' ? error.status : undefined;
}

export function resultOf(token: string, outcome: PoolOutcome, now = Date.now()): FcmResult {
  if (!outcome.ok) return { token, status: 0, errorCode: outcome.reason };
  const { status, headers, body } = outcome.answer;
  const result: FcmResult = { token, status };
  if (status === 200) {
    try {
      const name = (JSON.parse(body) as { name?: unknown }).name;
      if (typeof name === 'string') result.name = name;
    } catch {
      // A 200 is a delivery whatever its body says.
    }
  } else {
    const code = errorCodeOf(body);
    if (code) result.errorCode = code;
  }
  const retryAfter = headers['retry-after'];
  const ms = parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, now);
  if (ms !== undefined) result.retryAfterMs = ms;
  return result;
}
