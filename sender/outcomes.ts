// Each APNs answer maps to exactly one action, in this one table (STYLE "Sender outcomes").
// The APNs client answers status 0 when no answer arrived.
//
// | answer                                                        | action                          |
// | 200                                                           | sent                            |
// | 410 Unregistered, ExpiredToken (any 410)                      | failed + unsubscribe the device |
// |                                                               |   unless it registered after    |
// |                                                               |   Apple's timestamp             |
// | 400 BadDeviceToken, DeviceTokenNotForTopic (the token was sent | failed + unsubscribe, with the |
// |     to its own environment's gateway, for the app's topic)    |   reason                        |
// | 403 ExpiredProviderToken (client already renewed once)        | retry with back-off, bounded    |
// | 403 InvalidProviderToken, MissingProviderToken, BadCertificate,| stop the send: the app's       |
// |     BadCertificateEnvironment; 400 TopicDisallowed, BadTopic  |   credentials are refused      |
// | 403 BadCertificateEnvironment for a device not on the App's   | failed (reason kept): a        |
// |     own environment (a test_type install)                     |   certificate serves one       |
// |                                                               |   environment; the send goes on |
// | 429 TooManyRequests (this device, too often)                  | retry with back-off, bounded;   |
// |                                                               |   then failed                   |
// | 0 (no answer: connection refused, lost, reset, TLS, timeout), | hold: Apple refused nothing.    |
// |     500, 503, any other 5xx (Apple's own failure)             |   A round in which Apple decides |
// |                                                               |   no device is an outage: held, |
// |                                                               |   no attempt spent, never       |
// |                                                               |   failed (retry-rounds.ts). A   |
// |                                                               |   5xx in a round that decides   |
// |                                                               |   others: bounded, then failed  |
// | 400, other 403, 404, 405, 413, any other 4xx                  | failed (reason kept)            |
// | none: refused before sending (`local`, reason Unframeable: a   | failed: our bug, not the        |
// |     value HTTP/2 cannot carry, core/apns/field-values.ts)     |   device's; never held, never   |
// |                                                               |   unsubscribe (logged there)    |
//
// "Unsubscribe" of a Live Activity push removes that activity's (or type's) token instead; the
// install stays subscribed (core/delivery/chunks.ts recordChunk).
//
// An unreachable or failing gateway is an outage, not a refusal (the contract: "failed when the
// gateway refuses it"), like a database outage: the worker holds the chunk while it lasts
// (retry-rounds.ts). Only a device Apple keeps failing while it answers the others is failed.
import type { ApnsResult } from '../core/apns/types.js';
import type { Action } from '../core/gateway/action.js';

export type { Action };

/** Refusals that concern the app's key, certificate or topic, not one device. */
export const CREDENTIAL_REASONS = new Set([
  'InvalidProviderToken',
  'MissingProviderToken',
  'BadCertificate',
  'BadCertificateEnvironment',
  'TopicDisallowed',
  'BadTopic',
]);

/**
 * 400 reasons that condemn the token itself. Each device goes to its own environment's gateway
 * (routing.ts), so BadDeviceToken there is not an environment mix-up.
 */
export const REFUSED_TOKEN_REASONS = new Set(['BadDeviceToken', 'DeviceTokenNotForTopic']);

/** What the table needs of the device besides Apple's answer. */
export interface DeviceContext {
  /** Its gateway is not the App's own environment (an install's test_type chose the other). */
  offEnvironment?: boolean;
}

export function actionFor(r: Pick<ApnsResult, 'status' | 'reason' | 'retryAfterMs' | 'timestamp' | 'local'>, device: DeviceContext = {}): Action {
  const reason = r.reason ?? (r.status === 0 ? 'ConnectionError' : `HTTP${r.status}`);
  // Nothing reached Apple, so nothing is known of the device, and waiting would not help.
  if (r.local) return { kind: 'failed', reason };
  if (r.status === 200) return { kind: 'sent' };
  if (r.status === 0) return { kind: 'hold', reason };
  if (r.status === 410) return { kind: 'unsubscribe', reason, appleTimestampMs: r.timestamp };
  if (r.status === 400 && REFUSED_TOKEN_REASONS.has(reason)) return { kind: 'unsubscribe', reason };
  // The App's certificate is for its own environment; that the other gateway refuses it says
  // nothing of the App's devices, only that this one cannot be reached with it.
  if (r.status === 403 && reason === 'BadCertificateEnvironment' && device.offEnvironment) return { kind: 'failed', reason };
  if (CREDENTIAL_REASONS.has(reason) && (r.status === 403 || r.status === 400)) return { kind: 'stop', reason };
  if (r.status === 403 && reason === 'ExpiredProviderToken') return { kind: 'retry', reason };
  if (r.status >= 500) return { kind: 'hold', reason, retryAfterMs: r.retryAfterMs };
  if (r.status === 429) return { kind: 'retry', reason, retryAfterMs: r.retryAfterMs };
  return { kind: 'failed', reason };
}
