// The FCM gateway port as the sender sees it (issue 39 point 2): one client per App (its service
// account), one device per request. The caller owns retries and holds (sender/); the client only
// renews the access token once on a 401 and sends that message again.
import type { Logger } from '../log.js';
import type { Dialer } from '../net/dialer.js';
import type { FleetTokenSource } from '../gateway/fleet-token.js';

export const FCM_PRODUCTION_URL = 'https://fcm.googleapis.com';

export interface FcmTarget {
  projectId: string;
  /** HERALD_FCM_URL: overrides https://fcm.googleapis.com (the simulator). */
  url?: string;
  /** An extra CA PEM to trust besides the public roots (HERALD_FCM_CA_FILE's content). */
  ca?: string;
  /** The App's access tokens: one per App, shared by every request (access-token.ts). */
  tokens: FleetTokenSource;
}

export interface FcmMessage {
  /** The device's registration token (kept as given: FCM tokens are case-sensitive). */
  token: string;
  /** The JSON body, `{"message": {...}}`, already built and size-checked (core/payload/fcm-message.ts). */
  body: string;
}

export interface FcmResult {
  token: string;
  /** The HTTP status FCM answered; 0 when no answer arrived (connection, reset, timeout, token endpoint out). */
  status: number;
  /**
   * FCM's error code (details[].errorCode: UNREGISTERED, SENDER_ID_MISMATCH, INVALID_ARGUMENT,
   * QUOTA_EXCEEDED, UNAVAILABLE, INTERNAL, THIRD_PARTY_AUTH_ERROR), else the error's `status`;
   * TOKEN_REFUSED when the token endpoint refused the App's assertion; for status 0 ConnectionError,
   * StreamReset, Timeout.
   */
  errorCode?: string;
  /** 200: projects/{id}/messages/{message_id}. */
  name?: string;
  /** From a Retry-After header (seconds or an HTTP date). */
  retryAfterMs?: number;
}

export interface FcmClient {
  /**
   * Sends every message concurrently; results in the same order. Never rejects for one message's
   * failure. `answered`, when given, is called as each message's answer arrives (its status, 0 for
   * none, and the seconds since the batch began): the sender's latency histogram.
   */
  send(messages: FcmMessage[], answered?: (status: number, seconds: number) => void): Promise<FcmResult[]>;
  close(): Promise<void>;
}

export interface FcmClientOptions {
  /** HTTP/2 connections to FCM (default 4): FCM serves about 100 streams on each. */
  connections?: number;
  /** Streams in flight per connection (default 100; lowered to what the server advertises). */
  maxConcurrentStreams?: number;
  /** Per-request timeout in ms (default 10,000). */
  requestTimeoutMs?: number;
  logger?: Logger;
  /** The way out (HTTPS_PROXY, NO_PROXY: core/net/dialer.ts); direct when absent. */
  dialer?: Dialer;
}
