// One HTTP/2 connection to APNs, (re)opened on demand. A GOAWAY, an error or a close retires
// the session: streams already on it finish or fail on their own, the next request opens a new
// one. Every way a request can end without an answer becomes a TransportFailure, never a throw.
import { connect, constants, type ClientHttp2Session, type OutgoingHttpHeaders, type SecureClientSessionOptions } from 'node:http2';
import type { Logger } from 'pino';

export type TransportFailureReason = 'ConnectionError' | 'StreamReset' | 'Timeout';

export interface RawAnswer {
  status: number;
  apnsId?: string;
  retryAfter?: string;
  body: string;
}

export type RequestOutcome = { ok: true; answer: RawAnswer } | { ok: false; reason: TransportFailureReason; detail: string };

interface Deadline {
  at: number;
  expire(): void;
}

/** Retire a session well before HTTP/2's 2^31 stream ids run out. */
const MAX_STREAMS_PER_SESSION = 1_000_000_000;

export class ApnsConnection {
  inflight = 0;
  private session: ClientHttp2Session | undefined;
  private streamsOnSession = 0;
  private peerLimit = Number.POSITIVE_INFINITY;
  private closed = false;
  /**
   * Request deadlines, checked by one sweep timer per connection: a timer per stream
   * (stream.setTimeout) costs measurably at tens of thousands of streams a second.
   */
  private readonly deadlines = new Set<Deadline>();
  private sweeper: NodeJS.Timeout | undefined;
  /** Requests awaiting an answer; the session keeps the process alive only while this is > 0. */
  private active = 0;

  constructor(
    readonly id: number,
    private readonly origin: string,
    private readonly tls: SecureClientSessionOptions,
    private readonly maxStreams: number,
    private readonly logger: Logger,
  ) {}

  /** How many streams this connection may carry at once now. */
  get capacity(): number {
    return Math.min(this.maxStreams, this.peerLimit);
  }

  private open(): ClientHttp2Session {
    const started = Date.now();
    const session = connect(this.origin, { ...this.tls, settings: { enablePush: false } });
    this.session = session;
    this.streamsOnSession = 0;
    const retire = (): void => {
      if (this.session === session) this.session = undefined;
    };
    session.on('connect', () => {
      const limit = session.remoteSettings.maxConcurrentStreams;
      if (limit !== undefined && limit > 0) this.peerLimit = limit;
      this.logger.info({ connection: this.id, ms: Date.now() - started }, 'apns connected');
    });
    session.on('remoteSettings', (s) => {
      if (s.maxConcurrentStreams !== undefined && s.maxConcurrentStreams > 0) this.peerLimit = s.maxConcurrentStreams;
    });
    session.on('goaway', (errorCode, lastStreamId, opaque) => {
      retire();
      this.logger.warn({ connection: this.id, errorCode, lastStreamId, data: opaque?.toString('utf8').slice(0, 200) }, 'apns GOAWAY');
    });
    session.on('error', (err) => {
      retire();
      this.logger.warn({ connection: this.id, err: { message: err.message, code: (err as NodeJS.ErrnoException).code } }, 'apns connection error');
    });
    session.on('close', () => {
      retire();
      this.logger.debug({ connection: this.id }, 'apns connection closed');
    });
    // A pool that sits idle must not keep the process alive.
    session.unref();
    return session;
  }

  private usableSession(): ClientHttp2Session {
    const s = this.session;
    if (s && !s.closed && !s.destroyed && this.streamsOnSession < MAX_STREAMS_PER_SESSION) return s;
    if (s && !s.closed && !s.destroyed) s.close();
    return this.open();
  }

  request(headers: OutgoingHttpHeaders, body: string, timeoutMs: number): Promise<RequestOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, reason: 'ConnectionError', detail: 'client closed' });
    return new Promise((resolve) => {
      let settled = false;
      const done = (outcome: RequestOutcome): void => {
        if (settled) return;
        settled = true;
        if (--this.active === 0) this.session?.unref();
        resolve(outcome);
      };
      this.active++;
      let session: ClientHttp2Session;
      let stream: ReturnType<ClientHttp2Session['request']>;
      try {
        session = this.usableSession();
        this.streamsOnSession++;
        session.ref();
        stream = session.request(headers, { endStream: false });
      } catch (err) {
        this.session = undefined;
        done({ ok: false, reason: 'ConnectionError', detail: (err as Error).message });
        return;
      }
      let status = 0;
      let apnsId: string | undefined;
      let retryAfter: string | undefined;
      let data: Buffer[] | undefined;
      const deadline: Deadline = { at: Date.now() + timeoutMs, expire: () => {
        done({ ok: false, reason: 'Timeout', detail: `no answer in ${timeoutMs} ms` });
        stream.close(constants.NGHTTP2_CANCEL);
      } };
      this.deadlines.add(deadline);
      this.sweepTimeouts();
      stream.on('response', (h) => {
        status = Number(h[':status']);
        apnsId = h['apns-id'] as string | undefined;
        retryAfter = h['retry-after'] as string | undefined;
      });
      // A 200 has no body; error bodies are a few dozen bytes.
      stream.on('data', (chunk: Buffer) => {
        (data ??= []).push(chunk);
      });
      let streamError: (Error & { code?: string }) | undefined;
      stream.on('error', (err: Error) => {
        streamError = err; // 'close' follows and decides
      });
      // 'close' always comes last, after 'end' or an error, so it alone settles the answer.
      stream.on('close', () => {
        this.deadlines.delete(deadline);
        if (status > 0 && stream.rstCode === constants.NGHTTP2_NO_ERROR) {
          const body = data ? Buffer.concat(data).toString('utf8') : '';
          done({ ok: true, answer: { status, apnsId, retryAfter, body } });
          return;
        }
        // Reset by the peer while the connection lives on: the stream alone was refused.
        const sessionAlive = !session.destroyed && !session.closed;
        const reset = streamError?.code === 'ERR_HTTP2_STREAM_ERROR' || (stream.rstCode !== undefined && stream.rstCode !== constants.NGHTTP2_NO_ERROR);
        done({
          ok: false,
          reason: reset && sessionAlive ? 'StreamReset' : 'ConnectionError',
          detail: streamError?.message ?? `stream closed without an answer (rst ${stream.rstCode})`,
        });
      });
      stream.end(body);
    });
  }

  private sweepTimeouts(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const d of this.deadlines) {
        if (d.at <= now) {
          this.deadlines.delete(d);
          d.expire();
        }
      }
      if (this.deadlines.size === 0) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
    }, 250);
    this.sweeper.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    const s = this.session;
    this.session = undefined;
    if (!s || s.destroyed) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        s.destroy();
        resolve();
      }, 5000);
      timer.unref();
      s.close(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
