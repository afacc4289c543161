// The APNs gateway adapter on @parse/node-apn (the design card's choice; the benchmark in
// docs/apns.md found no throughput reason to leave it). node-apn's own retries are switched off
// (connectionRetryLimit 0): the sender's outcome table owns retry and back-off. What the wrapper
// adds: a cap on streams in flight (node-apn has none), one retry after ExpiredProviderToken
// (node-apn renews the token itself on that answer), and node-apn's failure shapes mapped to
// ApnsResult in one function.
import { rootCertificates } from 'node:tls';
import apn from '@parse/node-apn';
import { pino } from 'pino';
import { apnsOrigin } from './endpoint.js';
import { refuseUnframeable } from './field-values.js';
import { topicOf } from '../payload/push-types.js';
import type { ApnsClient, ApnsClientOptions, ApnsMessage, ApnsResult, ApnsTarget } from './types.js';

const DEFAULTS = { connections: 2, maxConcurrentStreams: 500, requestTimeoutMs: 10_000 };

interface NodeApnFailure {
  device?: string;
  status?: number | string;
  response?: { reason?: string; timestamp?: number };
  error?: Error;
  'apns-id'?: string;
}

/** node-apn's `failed` entries → ApnsResult. The only place that knows their shapes. */
export function resultOfNodeApn(token: string, failure: NodeApnFailure): ApnsResult {
  const status = typeof failure.status === 'number' ? failure.status : 0;
  const result: ApnsResult = { token, status };
  if (failure['apns-id']) result.apnsId = failure['apns-id'];
  if (failure.response?.reason) result.reason = failure.response.reason;
  if (typeof failure.response?.timestamp === 'number') result.timestamp = failure.response.timestamp;
  if (result.reason) return result;
  const message = failure.error?.message ?? '';
  if (status === 403 && message === 'ExpiredProviderToken') result.reason = 'ExpiredProviderToken';
  else if (status === 500) result.reason = 'InternalServerError';
  else if (status === 0) {
    result.reason = /timeout/i.test(message) ? 'Timeout' : /NGHTTP2_INTERNAL_ERROR|NGHTTP2_REFUSED_STREAM|NGHTTP2_CANCEL/.test(String(failure.error?.stack ?? message)) && !/GOAWAY|session/i.test(message) ? 'StreamReset' : 'ConnectionError';
  }
  return result;
}

export function createNodeApnClient(target: ApnsTarget, opts: ApnsClientOptions = {}): ApnsClient {
  const origin = new URL(apnsOrigin(target));
  const logger = (opts.logger ?? pino({ level: 'silent' })).child({ component: 'apns', origin: origin.origin, topic: target.topic });
  const connections = Math.max(1, opts.connections ?? DEFAULTS.connections);
  const capacity = connections * Math.max(1, opts.maxConcurrentStreams ?? DEFAULTS.maxConcurrentStreams);
  const c = target.credentials;
  const provider = new apn.MultiProvider(providerOptions(target, origin, connections, opts));
  let inflight = 0;
  let closed = false;
  const waiting: Array<() => void> = [];

  async function attempt(m: ApnsMessage): Promise<ApnsResult> {
    if (closed) return { token: m.token, status: 0, reason: 'ClientClosed' };
    // Node's HTTP/2 would throw on such a value, which would read as no answer (an outage).
    const refused = refuseUnframeable(m, logger);
    if (refused) return refused;
    if (inflight >= capacity) await new Promise<void>((resolve) => waiting.push(resolve));
    if (closed) return { token: m.token, status: 0, reason: 'ClientClosed' };
    inflight++;
    try {
      const { sent, failed } = m.channelId !== undefined ? await provider.broadcast(notificationFor(m, target.topic), target.topic) : await provider.send(notificationFor(m, target.topic), m.token);
      if (sent.length > 0) {
        const apnsId = (sent[0] as unknown as { 'apns-id'?: string })['apns-id'];
        return apnsId ? { token: m.token, status: 200, apnsId } : { token: m.token, status: 200 };
      }
      return resultOfNodeApn(m.token, (failed[0] ?? {}) as NodeApnFailure);
    } catch (err) {
      return { token: m.token, status: 0, reason: 'ConnectionError' };
    } finally {
      inflight--;
      waiting.shift()?.();
    }
  }

  async function sendOne(m: ApnsMessage): Promise<ApnsResult> {
    const first = await attempt(m);
    if (first.status === 403 && first.reason === 'ExpiredProviderToken' && c.kind === 'token') {
      logger.info('apns provider token renewed after ExpiredProviderToken');
      return attempt(m);
    }
    return first;
  }

  return {
    send(messages) {
      return Promise.all(messages.map(sendOne));
    },
    async close() {
      closed = true;
      for (const w of waiting.splice(0)) w();
      await provider.shutdown();
    },
  };
}

/** node-apn's options: `connections` clients to the target's origin, authenticated as its credentials say. */
function providerOptions(target: ApnsTarget, origin: URL, connections: number, opts: ApnsClientOptions): apn.MultiProviderOptions {
  const c = target.credentials;
  const options: apn.MultiProviderOptions = {
    clientCount: connections,
    address: origin.hostname,
    port: Number(origin.port || 443),
    production: target.environment === 'production',
    connectionRetryLimit: 0,
    requestTimeout: opts.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs,
    ...(target.ca ? { ca: [...rootCertificates, target.ca] } : {}),
  };
  // node-apn hands its options to node:http2's connect(): the session's socket comes through the
  // dialer (HTTPS_PROXY, NO_PROXY), never node-apn's own proxy support.
  if (opts.dialer) Object.assign(options, { createConnection: opts.dialer.http2Connection() });
  if (c.kind === 'token') options.token = { key: c.keyP8, keyId: c.keyId, teamId: c.teamId };
  else if (c.pfx) Object.assign(options, { pfx: c.pfx, passphrase: c.passphrase });
  else if (c.cert && c.key) Object.assign(options, { cert: c.cert, key: c.key, passphrase: c.passphrase });
  else throw new TypeError('APNs certificate credentials need pfx, or cert and key');
  return options;
}

/** node-apn's notification for `m`, carrying the sender's payload bytes as they are. */
function notificationFor(m: ApnsMessage, bundleId: string): apn.Notification {
  const n = new apn.Notification();
  // A broadcast names its channel, and its app in the path (provider.broadcast): no topic.
  if (m.channelId !== undefined) n.channelId = m.channelId;
  else n.topic = topicOf(bundleId, m.pushType);
  // The library's type lists the push types of its release (8.1: no controls); it writes the header as given.
  n.pushType = (m.pushType ?? 'alert') as apn.Notification['pushType'];
  if (m.priority !== undefined) n.priority = m.priority;
  if (m.expiration !== undefined) n.expiry = m.expiration;
  if (m.collapseId !== undefined) n.collapseId = m.collapseId;
  if (m.apnsId !== undefined) n.id = m.apnsId;
  // The payload is built and size-checked by the sender: send its exact bytes.
  (n as unknown as { compiled: string }).compiled = m.payload;
  return n;
}
