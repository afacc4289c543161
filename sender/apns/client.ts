// createHttp2ApnsClient: the same gateway adapter on node:http2 directly, kept as the measured
// alternative to @parse/node-apn (docs/apns.md) and for its finer transport outcomes. Several connections used round-robin, each
// carrying up to maxConcurrentStreams streams; messages beyond the pool's capacity wait in a
// FIFO queue. No retries here except one after an ExpiredProviderToken refresh: the sender's
// outcome table owns retry and back-off (ARCHITECTURE.md, "The life of a send", step 3).
import { rootCertificates, type SecureContextOptions } from 'node:tls';
import type { OutgoingHttpHeaders, SecureClientSessionOptions } from 'node:http2';
import { pino } from 'pino';
import { ApnsConnection, type RequestOutcome } from './connection.js';
import { apnsOrigin } from './endpoint.js';
import { ProviderTokenSigner } from './provider-token.js';
import type { ApnsClient, ApnsClientOptions, ApnsMessage, ApnsResult, ApnsTarget } from './types.js';

const DEFAULTS = { connections: 2, maxConcurrentStreams: 500, requestTimeoutMs: 10_000 };

function tlsOptions(target: ApnsTarget): SecureClientSessionOptions {
  const options: SecureContextOptions & SecureClientSessionOptions = {};
  // Extra CA on top of the public roots, so one setting serves both the simulator and Apple.
  if (target.ca) options.ca = [...rootCertificates, target.ca];
  const c = target.credentials;
  if (c.kind === 'certificate') {
    if (c.pfx) {
      options.pfx = c.pfx;
      options.passphrase = c.passphrase;
    } else if (c.cert && c.key) {
      options.cert = c.cert;
      options.key = c.key;
      options.passphrase = c.passphrase;
    } else {
      throw new TypeError('APNs certificate credentials need pfx, or cert and key');
    }
  }
  return options;
}

/** Maps an APNs answer to a result. Apple's error bodies are {"reason": "...", "timestamp"?: n}. */
export function resultOf(token: string, outcome: RequestOutcome): ApnsResult {
  if (!outcome.ok) return { token, status: 0, reason: outcome.reason };
  const { status, apnsId, retryAfter, body } = outcome.answer;
  const result: ApnsResult = { token, status };
  if (apnsId) result.apnsId = apnsId;
  if (status !== 200 && body) {
    try {
      const parsed = JSON.parse(body) as { reason?: unknown; timestamp?: unknown };
      if (typeof parsed.reason === 'string') result.reason = parsed.reason;
      if (typeof parsed.timestamp === 'number') result.timestamp = parsed.timestamp;
    } catch {
      result.reason = 'UnparsableResponse';
    }
  }
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) result.retryAfterMs = seconds * 1000;
  }
  return result;
}

export function createHttp2ApnsClient(target: ApnsTarget, opts: ApnsClientOptions = {}): ApnsClient {
  const origin = apnsOrigin(target);
  const logger = (opts.logger ?? pino({ level: 'silent' })).child({ component: 'apns', origin, topic: target.topic });
  const connections = Math.max(1, opts.connections ?? DEFAULTS.connections);
  const maxStreams = Math.max(1, opts.maxConcurrentStreams ?? DEFAULTS.maxConcurrentStreams);
  const timeoutMs = opts.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs;
  const tls = tlsOptions(target);
  const c = target.credentials;
  const signer = c.kind === 'token' ? new ProviderTokenSigner(c.keyP8, c.keyId, c.teamId) : undefined;
  const pool = Array.from({ length: connections }, (_, i) => new ApnsConnection(i + 1, origin, tls, maxStreams, logger));
  const waiting: Array<(conn: ApnsConnection | undefined) => void> = [];
  let next = 0;
  let closed = false;

  function freeConnection(): ApnsConnection | undefined {
    for (let i = 0; i < pool.length; i++) {
      const conn = pool[(next + i) % pool.length];
      if (conn.inflight < conn.capacity) {
        next = (next + i + 1) % pool.length;
        return conn;
      }
    }
    return undefined;
  }

  function acquire(): Promise<ApnsConnection | undefined> | ApnsConnection | undefined {
    if (closed) return undefined;
    const conn = freeConnection();
    if (conn) {
      conn.inflight++;
      return conn;
    }
    return new Promise((resolve) => waiting.push(resolve));
  }

  function release(conn: ApnsConnection): void {
    conn.inflight--;
    while (waiting.length > 0) {
      const free = freeConnection();
      if (!free) return;
      free.inflight++;
      (waiting.shift() as (c: ApnsConnection) => void)(free);
    }
  }

  function headersFor(m: ApnsMessage, authorization: string | undefined): OutgoingHttpHeaders {
    const h: OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': `/3/device/${m.token}`,
      'apns-topic': target.topic,
      'apns-push-type': m.pushType ?? 'alert',
    };
    if (authorization) h.authorization = authorization;
    if (m.priority !== undefined) h['apns-priority'] = String(m.priority);
    if (m.expiration !== undefined) h['apns-expiration'] = String(m.expiration);
    if (m.collapseId !== undefined) h['apns-collapse-id'] = m.collapseId;
    if (m.apnsId !== undefined) h['apns-id'] = m.apnsId;
    return h;
  }

  async function attempt(m: ApnsMessage): Promise<{ result: ApnsResult; generation?: number }> {
    const conn = await acquire();
    if (!conn) return { result: { token: m.token, status: 0, reason: 'ClientClosed' } };
    try {
      const token = signer?.current();
      const outcome = await conn.request(headersFor(m, token?.authorization), m.payload, timeoutMs);
      return { result: resultOf(m.token, outcome), generation: token?.generation };
    } finally {
      release(conn);
    }
  }

  async function sendOne(m: ApnsMessage): Promise<ApnsResult> {
    const first = await attempt(m);
    if (signer && first.result.status === 403 && first.result.reason === 'ExpiredProviderToken' && first.generation !== undefined) {
      signer.invalidate(first.generation);
      logger.info({ generation: first.generation }, 'apns provider token renewed after ExpiredProviderToken');
      return (await attempt(m)).result;
    }
    return first.result;
  }

  return {
    send(messages) {
      return Promise.all(messages.map(sendOne));
    },
    async close() {
      closed = true;
      for (const w of waiting.splice(0)) w(undefined);
      await Promise.all(pool.map((conn) => conn.close()));
    },
  };
}
