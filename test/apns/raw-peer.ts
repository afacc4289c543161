// An HTTP/2 peer that writes the frames a test scripts, byte for byte, over TLS with ALPN h2: what
// no real server will send (a CONTINUATION flood, a short RST_STREAM) and what a test must see of
// the client (its GOAWAY codes, how many connections it opened, when it closed one). It answers
// each request by the script of its connection's number; ':status 200' is HPACK static index 8.
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { ensureServerCertificate } from '../../apns-sim/index.js';
import { Flag, FRAME_HEADER, FrameReader, FrameType, writeFrameHeader } from '../../core/apns/frames.js';

/** What the peer answers a request on stream `id` with. */
export type Script = (id: number) => Buffer[];

export const frame = (type: number, flags: number, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer => {
  const buf = Buffer.alloc(FRAME_HEADER + payload.length);
  writeFrameHeader(buf, 0, payload.length, type, flags, stream);
  payload.copy(buf, FRAME_HEADER);
  return buf;
};
export const OK: Script = (id) => [frame(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id, Buffer.from([0x88]))];

export interface RawPeer {
  url: string;
  ca: string;
  /** GOAWAY codes the client sent, in order. */
  goaways: number[];
  /** Connections accepted so far; and those the client has closed. */
  connections: number;
  closed: number;
  /** Requests answered by OK, per connection number. */
  answered: Map<number, number>;
  close(): Promise<void>;
}

/** `scripts[n]` answers on the n-th connection (0-based); past the list, OK. `stall`: never read what the client sends. */
export async function startRawPeer(scripts: Script[] = [], opts: { stall?: boolean } = {}): Promise<RawPeer> {
  const certs = await ensureServerCertificate('.herald/test-raw-peer');
  const sockets = new Set<TLSSocket>();
  const peer: RawPeer = { url: '', ca: await readFile(certs.caFile, 'utf8'), goaways: [], connections: 0, closed: 0, answered: new Map(), close: async () => undefined };
  const server: Server = createServer({ key: await readFile(certs.keyFile), cert: await readFile(certs.certFile), ALPNProtocols: ['h2'] }, (socket) => {
    const n = peer.connections++;
    const script = scripts[n] ?? OK;
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      peer.closed++;
    });
    socket.on('error', () => undefined);
    socket.write(frame(FrameType.SETTINGS, 0, 0));
    if (opts.stall) return void socket.pause();
    let preface = 24;
    const reader = new FrameReader((type, flags, id, payload) => {
      if (type === FrameType.SETTINGS && !(flags & Flag.ACK)) socket.write(frame(FrameType.SETTINGS, Flag.ACK, 0));
      else if (type === FrameType.GOAWAY) peer.goaways.push(payload.readUInt32BE(4));
      else if ((type === FrameType.HEADERS || type === FrameType.DATA) && flags & Flag.END_STREAM) {
        if (script === OK) peer.answered.set(n, (peer.answered.get(n) ?? 0) + 1);
        for (const b of script(id)) if (!socket.destroyed) socket.write(b);
      }
    }, 1 << 24);
    socket.on('data', (chunk: Buffer) => {
      let data = chunk;
      if (preface > 0) {
        const skip = Math.min(preface, data.length);
        preface -= skip;
        data = data.subarray(skip);
      }
      try {
        if (data.length) reader.push(data);
      } catch {
        socket.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  peer.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  peer.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return peer;
}
