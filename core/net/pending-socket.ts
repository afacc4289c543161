// A stream that stands for a socket still being opened (a CONNECT tunnel on its way), for the
// APIs that want their socket at once: node:http2's createConnection and the lean APNs
// transport's TLS socket. Writes wait until the socket is there; reads and the end come from it;
// a failure to open it, or its error, is this stream's error. Backpressure goes both ways.
import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';

export class PendingSocket extends Duplex {
  private socket: Socket | undefined;
  private waiting: Array<{ chunk: Buffer; done: (error?: Error | null) => void }> = [];
  private ending: ((error?: Error | null) => void) | undefined;

  constructor(opening: Promise<Socket>) {
    super({ allowHalfOpen: false });
    opening.then((socket) => this.attach(socket), (error: Error) => this.destroy(error));
  }

  private attach(socket: Socket): void {
    if (this.destroyed) {
      socket.destroy();
      return;
    }
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) socket.pause();
    });
    socket.on('end', () => this.push(null));
    socket.on('error', (error) => this.destroy(error));
    socket.on('close', () => this.destroy());
    for (const { chunk, done } of this.waiting.splice(0)) socket.write(chunk, done);
    if (this.ending) socket.end(this.ending);
    socket.resume();
  }

  override _read(): void {
    this.socket?.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.socket) this.socket.write(chunk, done);
    else this.waiting.push({ chunk, done });
  }

  override _final(done: (error?: Error | null) => void): void {
    if (this.socket) this.socket.end(done);
    else this.ending = done;
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.socket?.destroy();
    for (const w of this.waiting.splice(0)) w.done(error ?? new Error('socket closed before it opened'));
    done(error);
  }

  /** node:net's Socket has these; TLS and HTTP/2 call them on whatever socket they are given. */
  setNoDelay(noDelay?: boolean): this {
    this.socket?.setNoDelay(noDelay);
    return this;
  }

  setKeepAlive(enable?: boolean, delay?: number): this {
    this.socket?.setKeepAlive(enable, delay);
    return this;
  }

  ref(): this {
    this.socket?.ref();
    return this;
  }

  unref(): this {
    this.socket?.unref();
    return this;
  }
}
