// createLeanApnsClient: the default APNs gateway adapter, HTTP/2 framed by hand over TLS
// sockets (docs/apns.md, "The lean transport"). node:http2 costs ~85 µs of CPU per request in
// stream objects and C++ round trips; here a request is ~200 bytes written into a batch buffer.
//
// The pool (connection-pool.ts): up to `connections` connections, opened as the messages in
// flight need them, over the gateway's addresses, and kept open. Messages wait in one FIFO queue;
// whatever was queued in the same tick is shared out among the connections with room and each
// connection frames its share into one write. Retries inside the transport are only for
// requests the peer never processed or never answered (GOAWAY above last-stream-id,
// REFUSED_STREAM, a lost connection), at most MAX_ATTEMPTS times, and one after an
// ExpiredProviderToken refresh; everything else is the sender's outcome table's to decide.
import type { ConnectionOptions } from 'node:tls';
import { pino, type Logger } from 'pino';
import { H2Connection, type ConnectionHooks } from './connection.js';
import { ConnectionPool, resolveAll, type PoolSnapshot } from './connection-pool.js';
import { apnsOrigin } from './endpoint.js';
import { Batch, Pending } from './pending.js';
import { PendingQueue } from './pending-queue.js';
import { localTokenSource } from './provider-token.js';
import { PresentedToken } from './presented-token.js';
import { refuseUnframeable } from './field-values.js';
import { requestPath } from './request-block.js';
import { resultOf } from './result.js';
import { tlsOptions } from './tls-options.js';
import { topicOf } from '../payload/push-types.js';
import type { ApnsClient, ApnsClientOptions, ApnsMessage, ApnsResult, ApnsTarget } from './types.js';
import { directDialer } from '../net/dialer.js';

/**
 * At most 16 connections: a sender's chunks in flight (HERALD_SENDER_CONCURRENCY 4 × 500 devices)
 * need 4 connections of Apple's 500 streams, so at Apple's 100 ms round trip nothing but the
 * sender's CPU caps it; the rest is room for a higher concurrency or a peer that lowers its
 * stream limit (docs/apns.md).
 */
export const DEFAULT_MAX_CONNECTIONS = 16;
const DEFAULTS = { connections: DEFAULT_MAX_CONNECTIONS, maxConcurrentStreams: 500, requestTimeoutMs: 10_000 };

/** The lean client, with a view of its pool for tests and benches. */
export interface LeanApnsClient extends ApnsClient {
  pool(): PoolSnapshot;
}

/** Times a message may go out on a connection for transport reasons (never-processed, lost). */
const MAX_ATTEMPTS = 3;
const PAYLOAD_CACHE = 32;

export function createLeanApnsClient(target: ApnsTarget, opts: ApnsClientOptions = {}): LeanApnsClient {
  const origin = new URL(apnsOrigin(target));
  const logger = (opts.logger ?? pino({ level: 'silent' })).child({ component: 'apns', origin: origin.origin, topic: target.topic });
  const c = target.credentials;
  // Built now, so a bad key throws here (the caller's CredentialsUnusableError), not at the first send.
  const signer = c.kind === 'token' ? new PresentedToken(opts.providerTokens?.(c) ?? localTokenSource(c.keyP8, c.keyId, c.teamId)) : undefined;
  const payloadOf = payloadCache();
  const queue = new PendingQueue();
  let scheduled = false;
  let closed = false;

  const requeue = (p: Pending) => {
    queue.requeue(p);
    schedule();
  };
  const pool = connectionPool(target, opts, origin, logger, connectionHooks(signer, logger, requeue, () => schedule()), () => schedule());

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    // After the current frames/sends of this tick: one write per connection for all of them.
    queueMicrotask(pump);
  }

  function pump(): void {
    scheduled = false;
    if (closed) return failAll('ClientClosed');
    if (queue.waiting === 0) return;
    const ready = pool.carriers(queue.waiting);
    // Nothing can carry them: answer now; the sender's outcome table retries later.
    if (!ready) return failAll('ConnectionError');
    if (ready.length === 0) return;
    const share = Math.ceil(queue.waiting / ready.length);
    for (const conn of ready) {
      if (queue.waiting === 0) break;
      const n = Math.min(conn.spare(), share, queue.waiting);
      if (n > 0) conn.start(queue.take(n), headerPrefix(conn, signer, origin.host, target.topic));
    }
  }

  function failAll(reason: string): void {
    for (const p of queue.drain()) p.settle({ token: p.message.token, status: 0, reason });
  }

  return {
    async send(messages: ApnsMessage[]): Promise<ApnsResult[]> {
      const unavailable = await providerTokenUnavailable(signer, logger, messages);
      if (unavailable) return unavailable;
      return new Promise((resolve) => {
        const batch = new Batch(messages.length, resolve);
        messages.forEach((m, i) => {
          const p = new Pending(m, payloadOf(m.payload), batch, i);
          p.path = requestPath(m, target.topic);
          if (closed) return p.settle({ token: m.token, status: 0, reason: 'ClientClosed' });
          // A value HTTP/2 cannot carry never goes out; it is our bug, not Apple's answer on the device.
          const refused = refuseUnframeable(m, logger);
          if (refused) return p.settle(refused);
          queue.push(p);
        });
        if (queue.waiting > 0) schedule();
      });
    },
    pool: () => pool.snapshot(),
    async close() {
      closed = true;
      failAll('ClientClosed');
      for (const conn of pool.all()) conn.close();
    },
  };
}

/** The pool of connections to the target's gateway; `changed` is called when one has room again. */
function connectionPool(target: ApnsTarget, opts: ApnsClientOptions, origin: URL, logger: Logger, hooks: ConnectionHooks, changed: () => void): ConnectionPool {
  const maxStreams = Math.max(1, opts.maxConcurrentStreams ?? DEFAULTS.maxConcurrentStreams);
  const timeoutMs = opts.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs;
  const tls: ConnectionOptions = tlsOptions(target);
  const host = origin.hostname.replace(/^\[|\]$/g, '');
  const port = Number(origin.port || 443);
  let nextId = 1;
  return new ConnectionPool(
    {
      maxConnections: Math.max(1, opts.connections ?? DEFAULTS.connections),
      maxStreams,
      host,
      byName: (opts.dialer ?? directDialer).proxied({ host, port }),
      resolve: opts.resolve ?? resolveAll,
      open: (address) => new H2Connection({ id: nextId++, host: address, servername: address === host ? undefined : host, port, tls, maxStreams, timeoutMs, logger, dialer: opts.dialer, lastStreamId: opts.lastStreamId, idleCloseMs: opts.idleCloseMs }, hooks),
    },
    changed,
  );
}

/**
 * What the client does with each request's end: settle it, or send it again when the peer never
 * processed it or refused an expired provider token (once, with the fleet's newer token).
 */
function connectionHooks(signer: PresentedToken | undefined, logger: Logger, requeue: (p: Pending) => void, schedule: () => void): ConnectionHooks {
  return {
    answered(p) {
      const result = resultOf(p.message.token, { ok: true, answer: { status: p.status, apnsId: p.apnsId, retryAfter: p.retryAfter, body: p.body ? Buffer.concat(p.body).toString('utf8') : '' } });
      if (signer && result.status === 403 && result.reason === 'ExpiredProviderToken' && !p.tokenRetried) {
        p.tokenRetried = true;
        // The fleet's newer token (or the one another process already put in place), then once more.
        signer.invalidate(p.generation).then(
          () => {
            logger.info({ generation: p.generation }, 'apns provider token taken anew after ExpiredProviderToken');
            requeue(p);
          },
          () => p.settle(result),
        );
        return;
      }
      p.settle(result);
    },
    failed(p, reason) {
      p.settle({ token: p.message.token, status: 0, reason });
    },
    unprocessed(p) {
      if (p.attempts >= MAX_ATTEMPTS) p.settle({ token: p.message.token, status: 0, reason: 'ConnectionError' });
      else requeue(p);
    },
    changed() {
      schedule();
    },
  };
}

/** The fleet's token is read from the database when none is held yet: out, it is an outage (status 0: held). */
async function providerTokenUnavailable(signer: PresentedToken | undefined, logger: Logger, messages: ApnsMessage[]): Promise<ApnsResult[] | undefined> {
  if (!signer) return undefined;
  try {
    await signer.ready();
    return undefined;
  } catch (error) {
    logger.warn({ err: { message: (error as Error).message } }, 'apns provider token unavailable');
    return messages.map((m) => ({ token: m.token, status: 0, reason: 'ProviderTokenUnavailable' }));
  }
}

/** The payload bytes, built once per distinct payload string (one per language of a send). */
function payloadCache(): (text: string) => Buffer {
  const payloads = new Map<string, Buffer>();
  return (text) => {
    let buf = payloads.get(text);
    if (!buf) {
      if (payloads.size >= PAYLOAD_CACHE) payloads.clear();
      buf = Buffer.from(text, 'utf8');
      payloads.set(text, buf);
    }
    return buf;
  };
}

/** A batch's header block prefix on `conn`: its constant fields, rebuilt only when a message differs from the one before. */
function headerPrefix(conn: H2Connection, signer: PresentedToken | undefined, authority: string, topic: string): (p: Pending) => Buffer {
  let last: ApnsMessage | undefined;
  let lastGeneration = -1;
  let key = '';
  let fields: Array<[string, string]> = [];
  return (p) => {
    const m = p.message;
    const authorization = signer?.current();
    p.generation = authorization?.generation ?? 0;
    const broadcast = m.channelId !== undefined;
    if (!last || p.generation !== lastGeneration || m.pushType !== last.pushType || m.priority !== last.priority || m.collapseId !== last.collapseId || broadcast !== (last.channelId !== undefined)) {
      key = `${broadcast ? 'broadcast' : 'device'}|${m.pushType ?? 'alert'}|${m.priority ?? ''}|${m.collapseId ?? '\0'}|${p.generation}`;
      // A broadcast names its app in :path and its channel in apns-channel-id: no apns-topic.
      fields = broadcast ? [[':authority', authority]] : [[':authority', authority], ['apns-topic', topicOf(topic, m.pushType)]];
      fields.push(['apns-push-type', m.pushType ?? 'alert']);
      if (m.priority !== undefined) fields.push(['apns-priority', String(m.priority)]);
      if (m.collapseId !== undefined) fields.push(['apns-collapse-id', m.collapseId]);
      if (authorization) fields.push(['authorization', authorization.authorization]);
    }
    last = m;
    lastGeneration = p.generation;
    // The encoder hands back cached bytes while its table model is unchanged (all but the first).
    return conn.encoder.prefix(key, fields);
  };
}
