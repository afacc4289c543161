// A pool of HTTP/2 connections to one origin (FCM): FCM serves about 100 concurrent streams per
// connection, so throughput comes from several (/work/shared/design/FCM.md). A request takes the
// open connection with the fewest streams in flight; when every one is full it waits its turn. A
// connection that closes, fails or is told GOAWAY is replaced on the next request.
import { connect, constants, type ClientHttp2Session, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import { directDialer, type Dialer } from '../net/dialer.js';
import { trustedContext } from './trust.js';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export type PoolOutcome = { ok: true; answer: RawAnswer } | { ok: false; reason: 'ConnectionError' | 'StreamReset' | 'Timeout' | 'ClientClosed'; detail: string };

export interface PoolOptions {
  connections: number;
  maxConcurrentStreams: number;
  requestTimeoutMs: number;
  ca?: string;
  dialer?: Dialer;
}

interface Slot {
  session: ClientHttp2Session | undefined;
  active: number;
  /** Streams allowed at once: ours, lowered to the peer's SETTINGS_MAX_CONCURRENT_STREAMS when it says (kept here: node's remoteSettings getter asks the native session each time). */
  limit: number;
}

const MAX_BODY = 64 * 1024;

export class Http2Pool {
  private readonly slots: Slot[];
  private readonly waiting: Array<() => void> = [];
  private closed = false;

  constructor(
    private readonly origin: string,
    private readonly opts: PoolOptions,
  ) {
    this.slots = Array.from({ length: Math.max(1, opts.connections) }, () => ({ session: undefined, active: 0, limit: opts.maxConcurrentStreams }));
  }

  async request(headers: OutgoingHttpHeaders, body: string): Promise<PoolOutcome> {
    if (this.closed) return { ok: false, reason: 'ClientClosed', detail: 'the FCM client is closed' };
    const slot = await this.acquire();
    try {
      // Closed while it waited for a stream: no new connection for it.
      if (this.closed) return { ok: false, reason: 'ClientClosed', detail: 'the FCM client is closed' };
      return await this.exchange(slot, headers, body);
    } finally {
      slot.active--;
      this.waiting.shift()?.();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiting.splice(0)) w();
    await Promise.all(
      this.slots.map((s) => {
        const session = s.session;
        s.session = undefined;
        if (!session || session.destroyed) return undefined;
        return new Promise<void>((resolve) => session.close(() => resolve()));
      }),
    );
  }

  private async acquire(): Promise<Slot> {
    for (;;) {
      let best: Slot | undefined;
      for (const s of this.slots) if (s.active < s.limit && (!best || s.active < best.active)) best = s;
      if (best || this.closed) {
        const slot = best ?? this.slots[0];
        slot.active++;
        return slot;
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private session(slot: Slot): ClientHttp2Session {
    const s = slot.session;
    if (s && !s.closed && !s.destroyed) return s;
    const session = connect(this.origin, { secureContext: trustedContext(this.opts.ca), createConnection: (this.opts.dialer ?? directDialer).http2Connection() });
    const forget = () => {
      if (slot.session === session) slot.session = undefined;
    };
    session.on('error', forget);
    session.on('close', forget);
    session.on('goaway', forget);
    slot.limit = this.opts.maxConcurrentStreams;
    session.on('remoteSettings', (settings) => {
      if (slot.session === session) slot.limit = Math.max(1, Math.min(this.opts.maxConcurrentStreams, settings.maxConcurrentStreams ?? Infinity));
    });
    // Idle connections do not keep the process alive; a request in flight does.
    session.unref();
    slot.session = session;
    return session;
  }

  private exchange(slot: Slot, headers: OutgoingHttpHeaders, body: string): Promise<PoolOutcome> {
    return new Promise((resolve) => {
      let settled = false;
      const done = (o: PoolOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(o);
      };
      let stream;
      try {
        stream = this.session(slot).request({ ...headers, [constants.HTTP2_HEADER_METHOD]: 'POST' });
      } catch (error) {
        done({ ok: false, reason: 'ConnectionError', detail: (error as Error).message });
        return;
      }
      const deadline = setTimeout(() => {
        stream.close(constants.NGHTTP2_CANCEL);
        done({ ok: false, reason: 'Timeout', detail: `no answer within ${this.opts.requestTimeoutMs} ms` });
      }, this.opts.requestTimeoutMs);
      let status = 0;
      let answerHeaders: IncomingHttpHeaders = {};
      const parts: Buffer[] = [];
      let size = 0;
      stream.on('response', (h) => {
        answerHeaders = h;
        status = Number(h[constants.HTTP2_HEADER_STATUS]);
      });
      stream.on('data', (b: Buffer) => {
        size += b.length;
        if (size <= MAX_BODY) parts.push(b);
      });
      stream.on('end', () => done(status ? { ok: true, answer: { status, headers: answerHeaders, body: Buffer.concat(parts).toString() } } : { ok: false, reason: 'StreamReset', detail: 'the stream ended without an answer' }));
      stream.on('error', (e: Error & { code?: string }) => done({ ok: false, reason: e.code === 'ERR_HTTP2_STREAM_ERROR' ? 'StreamReset' : 'ConnectionError', detail: e.message }));
      stream.on('close', () => done({ ok: false, reason: status ? 'StreamReset' : 'ConnectionError', detail: `stream closed (code ${stream.rstCode})` }));
      stream.end(body);
    });
  }
}
