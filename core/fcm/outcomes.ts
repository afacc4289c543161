// Each FCM answer maps to exactly one gateway action (core/gateway/action.ts), in this one table
// (issue 39 point 5; STYLE "Sender outcomes"). The reason is FCM's error code, which becomes the
// unsubscribe event's reason and the failed device's.
//
// | answer                                                     | action                            |
// | 200                                                        | sent                              |
// | 404 UNREGISTERED, 403 SENDER_ID_MISMATCH                   | unsubscribe: the token is dead    |
// | 400 INVALID_ARGUMENT (or any 400)                          | failed; the token is kept         |
// | 429 QUOTA_EXCEEDED, 500 INTERNAL, 503 UNAVAILABLE, any 5xx | hold, honouring Retry-After: an   |
// |                                                            |   outage, never failed for it     |
// | 0 (no answer: connection, reset, timeout; the token        | hold                              |
// |   endpoint unreachable or failing)                         |                                   |
// | THIRD_PARTY_AUTH_ERROR; 401 after a fresh token; the token | stop: the App's credentials are   |
// |   endpoint refusing the assertion (TOKEN_REFUSED); 403     |   refused; its Android devices    |
// |   PERMISSION_DENIED; 404 without UNREGISTERED (no such     |   are held, none failed           |
// |   project)                                                 |                                   |
// | any other 4xx                                              | failed (reason kept)              |
import type { Action } from '../gateway/action.js';
import type { FcmResult } from './types.js';

/** Error codes that condemn the token itself. */
export const DEAD_TOKEN_CODES = new Set(['UNREGISTERED', 'SENDER_ID_MISMATCH']);

/** The reason of a refusal of the App's credentials rather than of one device. */
export const TOKEN_REFUSED = 'TOKEN_REFUSED';

export function fcmActionFor(r: Pick<FcmResult, 'status' | 'errorCode' | 'retryAfterMs'>): Action {
  const reason = r.errorCode ?? (r.status === 0 ? 'ConnectionError' : `HTTP${r.status}`);
  if (r.status === 200) return { kind: 'sent' };
  if (r.status === 0) return { kind: 'hold', reason, retryAfterMs: r.retryAfterMs };
  if ((r.status === 404 || r.status === 403) && DEAD_TOKEN_CODES.has(reason)) return { kind: 'unsubscribe', reason };
  if (r.status === 401 || r.status === 403 || r.status === 404 || reason === 'THIRD_PARTY_AUTH_ERROR' || reason === TOKEN_REFUSED) return { kind: 'stop', reason };
  if (r.status === 429 || r.status >= 500) return { kind: 'hold', reason, retryAfterMs: r.retryAfterMs };
  return { kind: 'failed', reason };
}
