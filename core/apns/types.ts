// The APNs gateway port as the sender sees it. One client per app (credentials + topic +
// environment); the caller owns retries and back-off — the client only refreshes an expired
// provider token and retries that one message once.
import type { Logger } from 'pino';
import type { HeraldPushType } from '../payload/push-types.js';
import type { Dialer } from '../net/dialer.js';
import type { FleetTokenSource } from '../gateway/fleet-token.js';

export type ApnsCredentials =
  | { kind: 'token'; keyP8: string; keyId: string; teamId: string }
  | { kind: 'certificate'; pfx?: Buffer; passphrase?: string; cert?: string; key?: string };

export type TokenCredentials = Extract<ApnsCredentials, { kind: 'token' }>;

/**
 * The fleet's provider token for a team's key (issue 37): cli/ gives the store-backed sources
 * (core/apns/fleet-provider-tokens.ts); absent, a client mints its own (provider-token.ts
 * localTokenSource), as a test or a laptop may.
 */
export type ProviderTokenSources = (c: TokenCredentials) => FleetTokenSource;

export interface ApnsTarget {
  credentials: ApnsCredentials;
  /** The app's bundle id: apns-topic, with the suffix of the message's push type (core/payload/push-types.ts). */
  topic: string;
  environment: 'production' | 'sandbox';
  /** Overrides the Apple host (HERALD_APNS_URL), e.g. the simulator's https://127.0.0.1:2197. */
  url?: string;
  /** An extra CA PEM to trust besides the public roots (HERALD_APNS_CA_FILE's content). */
  ca?: string;
}

export interface ApnsMessage {
  /** Device token, hex. */
  token: string;
  /** The APNs JSON payload, already built and size-checked. */
  payload: string;
  /** Absent: alert. The topic follows it (a liveactivity push goes to `<bundle id>.push-type.liveactivity`). */
  pushType?: HeraldPushType;
  priority?: 1 | 5 | 10;
  /** apns-expiration: UNIX seconds; 0 = deliver once or drop. */
  expiration?: number;
  collapseId?: string;
  /** apns-id (UUID); APNs makes one when absent. */
  apnsId?: string;
  /**
   * A broadcast (issue 29, Apple's "Sending broadcast push notification requests to APNs"): the
   * request goes to `/4/broadcasts/apps/<bundle id>` with this `apns-channel-id` and no
   * apns-topic, to every device subscribed to the channel; `token` is not sent (give '').
   */
  channelId?: string;
}

export interface ApnsResult {
  token: string;
  /** The HTTP status APNs answered, or 0 when no answer arrived (connection, reset, timeout). */
  status: number;
  /**
   * APNs' reason string (e.g. BadDeviceToken, Unregistered, TooManyRequests) or, for status 0:
   * ConnectionError (could not connect / connection lost / GOAWAY), StreamReset, Timeout, ClientClosed;
   * with `local`, Unframeable.
   */
  reason?: string;
  apnsId?: string;
  /** 410 only: when APNs learnt the token was no longer valid (ms since epoch). */
  timestamp?: number;
  /** From a Retry-After header, when APNs sends one. */
  retryAfterMs?: number;
  /**
   * Refused here, before sending (reason `Unframeable`: a value HTTP/2 cannot carry,
   * core/apns/field-values.ts). Apple never saw it: failed, never held, never unsubscribed.
   */
  local?: true;
}

export interface ApnsClient {
  /** Sends all messages concurrently; results are in the same order. Never rejects for a per-message failure. */
  send(messages: ApnsMessage[]): Promise<ApnsResult[]>;
  close(): Promise<void>;
}

/** HERALD_APNS_CLIENT: `lean` (default, core/apns/transport.ts) or `node-apn` (@parse/node-apn). */
export type ApnsAdapter = 'lean' | 'node-apn';

export interface ApnsClientOptions {
  /** Which adapter createApnsClient builds (default lean). */
  adapter?: ApnsAdapter;
  /** HTTP/2 connections at most, opened as the streams in flight need them (lean default 16; node-apn opens this many). */
  connections?: number;
  /** Streams in flight per connection (default 500; lowered to what the server advertises). */
  maxConcurrentStreams?: number;
  /** Per-request timeout in ms (default 10,000). */
  requestTimeoutMs?: number;
  logger?: Logger;
  /** The way out (HTTPS_PROXY, NO_PROXY: core/net/dialer.ts); direct when absent. */
  dialer?: Dialer;
  /** The gateway's addresses (tests); default DNS. Not asked when the connection goes through the egress proxy. */
  resolve?: (host: string) => Promise<string[]>;
  /** Where the provider token comes from (the lean transport and channel management). */
  providerTokens?: ProviderTokenSources;
  /** Lean transport, for tests: retire a connection after this stream id, close one idle this long (ms). */
  lastStreamId?: number;
  idleCloseMs?: number;
}
