// An HTTP CONNECT tunnel (RFC 9110 9.3.6): a TCP connection to the proxy, `CONNECT host:port`,
// and once the proxy answers 2xx the same socket carries the bytes to the target. Everything
// before that answer is the proxy's: a socket error or close is the proxy unreachable, any other
// status is the proxy refusing that tunnel (407: our credentials). Each is a TunnelError of its
// kind, never a message to parse (STYLE "Errors by type").
import { connect, isIP, type Socket } from 'node:net';
import type { ProxyAddress } from '../formats/proxy-settings.js';

/** The proxy's answer head is a status line and a few headers: more than this is not a proxy. */
export const MAX_ANSWER_HEAD = 16 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})/;

export type TunnelFailure = 'unreachable' | 'refused' | 'protocol';

export class TunnelError extends Error {
  override name = 'TunnelError';
  constructor(
    /** unreachable: no answer from the proxy; refused: it answered other than 2xx; protocol: it answered something else than HTTP. */
    readonly kind: TunnelFailure,
    message: string,
    /** The proxy's status, when it answered one. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** host:port as a CONNECT request names it (an IPv6 address in brackets). */
export function authorityOf(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/** A socket to `target` through the proxy, resolved once the proxy said 2xx to CONNECT. */
export function openTunnel(proxy: ProxyAddress, target: { host: string; port: number }, timeoutMs: number): Promise<Socket> {
  const authority = authorityOf(target.host, target.port);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: proxy.host, port: proxy.port });
    socket.setNoDelay(true);
    let head = Buffer.alloc(0);
    const fail = (error: TunnelError) => {
      cleanup();
      socket.destroy();
      reject(error);
    };
    const onError = (error: Error) => fail(new TunnelError('unreachable', `egress proxy ${proxy.display}: ${error.message}`, undefined, { cause: error }));
    const onClose = () => fail(new TunnelError('unreachable', `egress proxy ${proxy.display} closed the connection before answering CONNECT ${authority}`));
    const onTimeout = () => fail(new TunnelError('unreachable', `egress proxy ${proxy.display}: no answer to CONNECT ${authority} within ${timeoutMs} ms`));
    // Read in paused mode ('readable'), so that once our listener goes the socket is neither
    // flowing nor paused: whoever takes it starts reading it, the bytes after the head first.
    const onReadable = () => {
      let chunk: Buffer | null;
      while ((chunk = socket.read() as Buffer | null) !== null) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf(HEAD_END);
        if (end < 0) {
          if (head.length > MAX_ANSWER_HEAD) return fail(new TunnelError('protocol', `egress proxy ${proxy.display}: no end to its answer's head in ${MAX_ANSWER_HEAD} bytes`));
          continue;
        }
        const status = STATUS_LINE.exec(head.subarray(0, Math.min(end, 64)).toString('latin1'));
        if (!status) return fail(new TunnelError('protocol', `egress proxy ${proxy.display}: its answer to CONNECT is not HTTP/1.x`));
        const code = Number(status[1]);
        if (code < 200 || code > 299) return fail(new TunnelError('refused', `egress proxy ${proxy.display} refused CONNECT ${authority}: HTTP ${code}`, code));
        cleanup();
        // Bytes after the head are the target's already (rare: the client speaks first in TLS and HTTP).
        const rest = head.subarray(end + HEAD_END.length);
        if (rest.length > 0) socket.unshift(rest);
        socket.setTimeout(0);
        return resolve(socket);
      }
    };
    const cleanup = () => {
      socket.off('readable', onReadable);
      socket.off('error', onError);
      socket.off('close', onClose);
      socket.off('timeout', onTimeout);
    };
    socket.on('readable', onReadable);
    socket.on('error', onError);
    socket.on('close', onClose);
    socket.on('timeout', onTimeout);
    socket.setTimeout(timeoutMs);
    const lines = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
    if (proxy.authorization) lines.push(`Proxy-Authorization: ${proxy.authorization}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}
