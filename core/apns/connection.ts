// One HTTP/2 connection of the lean APNs transport, over a TLS socket of our own. A batch of
// requests becomes one buffer (HEADERS + DATA frame per request) and one socket write; the
// peer's frames are parsed as they arrive and answers handed back per request. What the peer
// may do (SETTINGS mid-flight, windows, PING, GOAWAY, RST_STREAM, CONTINUATION, a dropped
// socket) and what happens then: the table in docs/apns.md, "The lean transport".
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import {
  DEFAULT_MAX_FRAME, DEFAULT_WINDOW, ErrorCode, Flag, FrameReader, FrameType, MAX_WINDOW, PREFACE, ProtocolError, SETTINGS_ACK,
  Setting, goawayFrame, pingAckFrame, rstStreamFrame, settingsFrame, windowUpdateFrame, writeFrameHeader, FRAME_HEADER,
} from './frames.js';
import { parseFrame, type ParsedFrame } from './frame-rules.js';
import { HpackDecoder, HpackError } from './hpack.js';
import { RequestEncoder, varyingFieldsBound, writePseudoFields, writeVaryingFields } from './request-block.js';
import type { Pending } from './pending.js';
import { directDialer, type Dialer } from '../net/dialer.js';

/** Our receive window (connection and stream): answers are small, so it never runs dry. */
const RECV_WINDOW = 1 << 24;
const MAX_BODY = 64 * 1024;
/** Retire a connection well before HTTP/2's 2^31 stream ids run out. */
export const LAST_STREAM_ID = 2_000_000_000;
/**
 * A header block (HEADERS + CONTINUATION) bigger than this, or cut into more frames than this, is
 * a peer flooding us (an answer's headers are a few hundred bytes): ENHANCE_YOUR_CALM.
 */
export const MAX_HEADER_BLOCK = 64 * 1024;
export const MAX_CONTINUATIONS = 32;
/** An open connection with no request for this long is closed (GOAWAY NO_ERROR); the next send opens one. */
export const IDLE_CLOSE_MS = 10 * 60_000;

export interface ConnectionHooks {
  answered(p: Pending): void;
  failed(p: Pending, reason: 'StreamReset' | 'Timeout'): void;
  /** Back to the pool: never processed (GOAWAY, REFUSED_STREAM), or unanswered on a lost connection. */
  unprocessed(p: Pending): void;
  /** Ready, capacity freed, or gone: the pool should dispatch. */
  changed(conn: H2Connection): void;
}

export interface ConnectionSettings {
  id: number;
  host: string;
  port: number;
  tls: ConnectionOptions;
  maxStreams: number;
  timeoutMs: number;
  logger: Logger;
  /** The way out (HTTPS_PROXY, NO_PROXY: core/net/dialer.ts); direct when absent. */
  dialer?: Dialer;
  /** The name the server's certificate must carry when `host` is one of its addresses (SNI, identity check). */
  servername?: string;
  /** Tests: retire the connection after this stream id (default LAST_STREAM_ID). */
  lastStreamId?: number;
  /** Tests: close an idle connection after this long (default IDLE_CLOSE_MS). */
  idleCloseMs?: number;
}

export class H2Connection {
  state: 'connecting' | 'ready' | 'draining' | 'closed' = 'connecting';
  private readonly socket: TLSSocket;
  private readonly streams = new Map<number, Pending>();
  private readonly reader: FrameReader;
  private readonly decoder = new HpackDecoder(4096);
  readonly encoder = new RequestEncoder();
  private nextStreamId = 1;
  private peerMaxStreams = Number.POSITIVE_INFINITY;
  private peerInitialWindow = DEFAULT_WINDOW;
  private peerMaxFrame = DEFAULT_MAX_FRAME;
  private sendWindow = DEFAULT_WINDOW;
  private recvUnacked = 0;
  private blocked: Pending[] = [];
  private continuation: { streamId: number; endStream: boolean; chunks: Buffer[]; size: number } | undefined;
  /** The socket's buffer is full (write() said false): no new streams until 'drain'. */
  private congested = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private control: Buffer[] = [];
  private freed = false;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly readyTimer: NodeJS.Timeout;
  /** Got the peer's SETTINGS once: a close after this is a lost connection, not a failed connect. */
  everReady = false;
  lastError = '';

  constructor(private readonly s: ConnectionSettings, private readonly hooks: ConnectionHooks) {
    this.reader = new FrameReader((type, flags, id, payload) => this.onFrame(type, flags, id, payload));
    const servername = s.servername ?? (isIP(s.host) ? undefined : s.host);
    this.socket = (s.dialer ?? directDialer).tls({ host: s.host, port: s.port }, { ...s.tls, servername, ALPNProtocols: ['h2'] });
    this.socket.setNoDelay(true);
    const connectTimer = setTimeout(() => this.destroy(new Error(`no HTTP/2 SETTINGS in ${s.timeoutMs} ms`)), s.timeoutMs);
    connectTimer.unref();
    this.socket.once('secureConnect', () => {
      if (this.socket.alpnProtocol !== 'h2') return this.destroy(new Error(`the server did not agree to HTTP/2 (ALPN ${this.socket.alpnProtocol})`));
      this.socket.write(Buffer.concat([
        PREFACE,
        settingsFrame([[Setting.ENABLE_PUSH, 0], [Setting.INITIAL_WINDOW_SIZE, RECV_WINDOW]]),
        windowUpdateFrame(0, RECV_WINDOW - DEFAULT_WINDOW),
      ]));
    });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('drain', () => {
      this.congested = false;
      this.hooks.changed(this);
    });
    this.socket.on('error', (err) => this.destroy(err));
    this.socket.on('close', () => {
      clearTimeout(connectTimer);
      this.destroy();
    });
    this.readyTimer = connectTimer;
  }

  get id(): number {
    return this.s.id;
  }

  /** The streams it may carry at once: ours, lowered to the peer's SETTINGS once they came. */
  streamLimit(): number {
    return Math.min(this.s.maxStreams, this.peerMaxStreams);
  }

  /** Streams open now. */
  inFlight(): number {
    return this.streams.size;
  }

  /** Where it connects (an address of the gateway's name, or the name). */
  get host(): string {
    return this.s.host;
  }

  /** Streams this connection may open now. */
  spare(): number {
    if (this.state !== 'ready' || this.congested) return 0;
    if (this.nextStreamId > (this.s.lastStreamId ?? LAST_STREAM_ID)) {
      this.drain();
      return 0;
    }
    return Math.max(0, Math.min(this.s.maxStreams, this.peerMaxStreams) - this.streams.size);
  }

  /** Frames every request of `batch` (prefix: the batch's constant header fields) and writes once. */
  start(batch: Pending[], prefixOf: (p: Pending) => Buffer): void {
    // Prefixes first, in order (each may change the encoder's table model), to size the buffer.
    const prefixes = batch.map(prefixOf);
    let bound = 0;
    for (let i = 0; i < batch.length; i++) bound += 2 * FRAME_HEADER + 16 + prefixes[i].length + varyingFieldsBound(batch[i].message, batch[i].payload.length, batch[i].path) + batch[i].payload.length;
    const buf = Buffer.allocUnsafe(bound + this.control.reduce((n, b) => n + b.length, 0));
    let at = 0;
    for (const b of this.control.splice(0)) at += b.copy(buf, at);
    const deadline = Date.now() + this.s.timeoutMs;
    for (let i = 0; i < batch.length; i++) {
      const p = batch[i];
      const id = this.nextStreamId;
      this.nextStreamId += 2;
      p.reset(id, this.peerInitialWindow, deadline);
      this.streams.set(id, p);
      const prefix = prefixes[i];
      const headerStart = at + FRAME_HEADER;
      let end = headerStart;
      const lead = this.encoder.leading();
      if (lead) end += lead.copy(buf, end);
      end = writePseudoFields(buf, end, p.message, p.path);
      end += prefix.copy(buf, end);
      end = writeVaryingFields(buf, end, p.message, p.payload.length);
      const empty = p.payload.length === 0;
      writeFrameHeader(buf, at, end - headerStart, FrameType.HEADERS, Flag.END_HEADERS | (empty ? Flag.END_STREAM : 0), id);
      at = end;
      if (!empty) at = this.writeData(buf, at, p);
    }
    this.write(buf.subarray(0, at));
    this.socket.ref();
    clearTimeout(this.idleTimer);
    this.sweep();
  }

  /** As much of p's payload as the windows allow; the rest waits for WINDOW_UPDATE. */
  private writeData(buf: Buffer, at: number, p: Pending): number {
    const left = p.payload.length - p.dataSent;
    const n = Math.min(left, this.sendWindow, p.sendWindow, this.peerMaxFrame);
    if (n <= 0) {
      this.blocked.push(p);
      return at;
    }
    const last = n === left;
    at = writeFrameHeader(buf, at, n, FrameType.DATA, last ? Flag.END_STREAM : 0, p.streamId);
    at += p.payload.copy(buf, at, p.dataSent, p.dataSent + n);
    p.dataSent += n;
    this.sendWindow -= n;
    p.sendWindow -= n;
    if (!last) this.blocked.push(p);
    return at;
  }

  private flushBlocked(): void {
    if (this.blocked.length === 0) return;
    const waiting = this.blocked;
    this.blocked = [];
    const buf = Buffer.allocUnsafe(waiting.reduce((n, p) => n + FRAME_HEADER * 4 + p.payload.length, 0));
    let at = 0;
    for (const p of waiting) {
      if (this.streams.get(p.streamId) !== p) continue; // answered or reset meanwhile
      while (p.dataSent < p.payload.length) {
        const before = at;
        at = this.writeData(buf, at, p);
        if (at === before || this.blocked.includes(p)) break;
      }
    }
    if (at > 0) this.control.push(Buffer.from(buf.subarray(0, at)));
  }

  private onData(chunk: Buffer): void {
    try {
      this.reader.push(chunk);
    } catch (err) {
      const code = err instanceof ProtocolError ? err.code : err instanceof HpackError ? ErrorCode.COMPRESSION_ERROR : ErrorCode.INTERNAL_ERROR;
      this.s.logger.warn({ connection: this.s.id, err: { message: (err as Error).message } }, 'apns protocol error; closing the connection');
      this.write(goawayFrame(0, code));
      this.destroy(err as Error);
      return;
    }
    this.settle();
  }

  /** After a read or a sweep: one write of the control frames, then tell the pool once. */
  private settle(): void {
    if (this.control.length > 0) this.write(Buffer.concat(this.control.splice(0)));
    if (this.freed) {
      this.freed = false;
      if (this.streams.size === 0) {
        this.socket.unref();
        this.idle();
      }
      if (this.state === 'draining' && this.streams.size === 0) this.destroy();
      this.hooks.changed(this);
    }
  }

  private onFrame(type: number, flags: number, id: number, payload: Buffer): void {
    const f = parseFrame(type, flags, id, payload);
    if (this.continuation && f.type !== FrameType.CONTINUATION) throw new ProtocolError('expected CONTINUATION');
    switch (f.type) {
      case FrameType.DATA: return this.onDataFrame(f);
      case FrameType.HEADERS:
        if (f.endHeaders) return this.onHeaderBlock(f.streamId, f.endStream, f.block);
        this.continuation = { streamId: f.streamId, endStream: f.endStream, chunks: [Buffer.from(f.block)], size: f.block.length };
        return;
      case FrameType.CONTINUATION: {
        const c = this.continuation;
        if (!c || c.streamId !== f.streamId) throw new ProtocolError('CONTINUATION without HEADERS');
        c.chunks.push(Buffer.from(f.block));
        c.size += f.block.length;
        if (c.size > MAX_HEADER_BLOCK || c.chunks.length > MAX_CONTINUATIONS + 1) throw new ProtocolError('header block too large or cut too fine', ErrorCode.ENHANCE_YOUR_CALM);
        if (!f.endHeaders) return;
        this.continuation = undefined;
        return this.onHeaderBlock(f.streamId, c.endStream, Buffer.concat(c.chunks));
      }
      case FrameType.RST_STREAM: return this.onReset(f.streamId, f.code);
      case FrameType.SETTINGS: return this.onSettings(f);
      case FrameType.PING:
        if (!f.ack) this.control.push(pingAckFrame(Buffer.from(f.opaque)));
        return;
      case FrameType.GOAWAY: return this.onGoaway(f);
      case FrameType.WINDOW_UPDATE: return this.onWindowUpdate(f.streamId, f.increment);
      default: return;
    }
  }

  private onHeaderBlock(id: number, endStream: boolean, block: Buffer): void {
    // Decoded even for a stream we no longer track: the dynamic table must stay in step.
    const headers = this.decoder.decode(block);
    const p = this.streams.get(id);
    if (!p) return;
    for (const [name, value] of headers) {
      if (name === ':status') {
        const status = Number(value);
        if (status >= 200) p.status = status; // 1xx is informational
      } else if (name === 'apns-id') p.apnsId = value;
      else if (name === 'retry-after') p.retryAfter = value;
    }
    if (endStream) this.complete(p);
  }

  private onDataFrame(f: Extract<ParsedFrame, { type: FrameType.DATA }>): void {
    this.recvUnacked += f.length;
    if (this.recvUnacked >= RECV_WINDOW / 2) {
      this.control.push(windowUpdateFrame(0, this.recvUnacked));
      this.recvUnacked = 0;
    }
    const p = this.streams.get(f.streamId);
    if (!p) return;
    p.bodyLength += f.data.length;
    if (p.bodyLength > MAX_BODY) {
      this.control.push(rstStreamFrame(f.streamId, ErrorCode.CANCEL));
      return this.end(p, 'StreamReset');
    }
    if (f.data.length > 0) (p.body ??= []).push(Buffer.from(f.data));
    if (f.endStream) this.complete(p);
  }

  private complete(p: Pending): void {
    if (p.status === 0) return this.end(p, 'StreamReset');
    this.release(p);
    // Answered before all its DATA went out (e.g. an early 413): tell the peer we are done.
    if (p.dataSent < p.payload.length) this.control.push(rstStreamFrame(p.streamId, ErrorCode.NO_ERROR));
    this.hooks.answered(p);
  }

  private end(p: Pending, reason: 'StreamReset' | 'Timeout'): void {
    this.release(p);
    this.hooks.failed(p, reason);
  }

  private release(p: Pending): void {
    this.streams.delete(p.streamId);
    this.freed = true;
  }

  private onReset(id: number, code: number): void {
    const p = this.streams.get(id);
    if (!p) return;
    if (code === ErrorCode.REFUSED_STREAM) {
      this.release(p);
      this.hooks.unprocessed(p);
    } else this.end(p, 'StreamReset');
  }

  private onSettings(f: Extract<ParsedFrame, { type: FrameType.SETTINGS }>): void {
    if (f.ack) return;
    for (const [key, value] of f.settings) {
      if (key === Setting.ENABLE_PUSH && value > 1) throw new ProtocolError('ENABLE_PUSH neither 0 nor 1');
      if (key === Setting.MAX_CONCURRENT_STREAMS) {
        if (value < this.peerMaxStreams) this.s.logger.debug({ connection: this.s.id, value }, 'apns peer lowered MAX_CONCURRENT_STREAMS');
        this.peerMaxStreams = value;
        this.freed = true;
      } else if (key === Setting.INITIAL_WINDOW_SIZE) {
        if (value > MAX_WINDOW) throw new ProtocolError('INITIAL_WINDOW_SIZE too large', ErrorCode.FLOW_CONTROL_ERROR);
        const delta = value - this.peerInitialWindow;
        this.peerInitialWindow = value;
        for (const p of this.streams.values()) p.sendWindow += delta;
      } else if (key === Setting.MAX_FRAME_SIZE) {
        if (value < DEFAULT_MAX_FRAME || value > 16_777_215) throw new ProtocolError('MAX_FRAME_SIZE out of range');
        this.peerMaxFrame = value;
      } else if (key === Setting.HEADER_TABLE_SIZE) this.encoder.setPeerTableSize(value);
    }
    this.control.push(SETTINGS_ACK);
    this.flushBlocked();
    if (this.state === 'connecting') {
      this.state = 'ready';
      this.everReady = true;
      clearTimeout(this.readyTimer);
      this.freed = true;
      this.s.logger.info({ connection: this.s.id }, 'apns connected');
    }
  }

  private onGoaway(f: Extract<ParsedFrame, { type: FrameType.GOAWAY }>): void {
    const last = f.lastStreamId;
    this.s.logger.warn({ connection: this.s.id, code: f.code, lastStreamId: last, data: f.debug.toString('utf8') }, 'apns GOAWAY');
    this.drain();
    for (const [id, p] of this.streams) {
      if (id <= last) continue;
      this.release(p);
      this.hooks.unprocessed(p);
    }
  }

  private onWindowUpdate(id: number, increment: number): void {
    if (id === 0) this.sendWindow += increment;
    else {
      const p = this.streams.get(id);
      if (p) p.sendWindow += increment;
    }
    if (this.sendWindow > MAX_WINDOW) throw new ProtocolError('window above 2^31-1', ErrorCode.FLOW_CONTROL_ERROR);
    this.flushBlocked();
  }

  private drain(): void {
    if (this.state === 'ready' || this.state === 'connecting') this.state = 'draining';
    this.freed = true;
  }

  /** Writes; a full socket buffer stops new streams until 'drain' (backpressure). */
  private write(buf: Buffer): void {
    if (this.socket.destroyed) return;
    if (!this.socket.write(buf)) this.congested = true;
  }

  /** No stream open: close after idleCloseMs unless a request comes first. */
  private idle(): void {
    clearTimeout(this.idleTimer);
    if (this.state !== 'ready') return;
    this.idleTimer = setTimeout(() => {
      if (this.streams.size === 0 && this.state === 'ready') {
        this.s.logger.info({ connection: this.s.id }, 'apns connection idle; closing it');
        this.close();
      }
    }, this.s.idleCloseMs ?? IDLE_CLOSE_MS);
    this.idleTimer.unref();
  }

  /** One timer per connection checks deadlines: a timer per stream costs at this rate. */
  private sweep(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const p of this.streams.values()) {
        if (p.deadline > now) continue;
        this.write(rstStreamFrame(p.streamId, ErrorCode.CANCEL));
        this.end(p, 'Timeout');
      }
      if (this.streams.size === 0) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
      this.settle();
    }, Math.min(250, Math.max(10, this.s.timeoutMs / 4)));
    this.sweeper.unref();
  }

  /** Closes now; every stream still open goes back to the pool. */
  destroy(err?: Error): void {
    if (this.state === 'closed') return;
    const wasReady = this.state !== 'connecting';
    this.state = 'closed';
    clearTimeout(this.readyTimer);
    clearTimeout(this.idleTimer);
    if (this.sweeper) clearInterval(this.sweeper);
    if (err) this.s.logger.warn({ connection: this.s.id, err: { message: err.message, code: (err as NodeJS.ErrnoException).code } }, 'apns connection error');
    this.lastError = err?.message ?? (wasReady ? 'connection closed' : 'could not connect');
    this.socket.destroy();
    const open = [...this.streams.values()];
    this.streams.clear();
    this.blocked = [];
    for (const p of open) this.hooks.unprocessed(p);
    this.hooks.changed(this);
  }

  /** Graceful close: GOAWAY, then the socket. */
  close(): void {
    if (this.state === 'closed') return;
    this.write(goawayFrame(0, ErrorCode.NO_ERROR));
    this.socket.end();
    this.destroy();
  }
}
