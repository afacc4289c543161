// A small HTTP CONNECT proxy for the egress tests: it tunnels to the target named in CONNECT (a
// name it knows from `hosts`, which Herald's own resolver does not, proves a connection came
// through it), records each tunnel and the Proxy-Authorization it was given, asks for credentials
// (407) when it has some, refuses the targets `refuse` names (403), answers 502 when the target
// does not answer, and stops and starts again on the same port closing every open tunnel, as a
// proxy restart does. Written here rather than Debian's tinyproxy or squid for those faults and
// that record (docs/decisions.md "Issue 37").
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface Tunnel {
  /** host:port as CONNECT named it. */
  target: string;
  authorization?: string;
  status: number;
}

export interface ConnectProxyOptions {
  /** `user:pass` the proxy requires (407 without it). */
  credentials?: string;
  /** Names only this proxy resolves: name → address. */
  hosts?: Record<string, string>;
  port?: number;
}

export class ConnectProxy {
  readonly tunnels: Tunnel[] = [];
  /** CONNECT targets (host:port) answered 403 while this returns true. */
  refuse: (target: string) => boolean = () => false;
  private server: Server | undefined;
  private readonly open = new Set<Socket>();
  private constructor(private readonly opts: ConnectProxyOptions, public port: number) {}

  static async start(opts: ConnectProxyOptions = {}): Promise<ConnectProxy> {
    const proxy = new ConnectProxy(opts, opts.port ?? 0);
    await proxy.up();
    return proxy;
  }

  /** http://[user:pass@]127.0.0.1:port, as HTTPS_PROXY takes it. */
  url(credentials = this.opts.credentials): string {
    return `http://${credentials ? `${credentials}@` : ''}127.0.0.1:${this.port}`;
  }

  /** Tunnels opened (2xx) to targets whose host is `host`. */
  opened(host: string): number {
    return this.tunnels.filter((t) => t.status === 200 && t.target.startsWith(`${host}:`)).length;
  }

  async up(): Promise<void> {
    const server = createServer((client) => this.serve(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as { port: number }).port;
  }

  /** Stops listening and closes every tunnel (a restart is down(), then up()). */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.open) s.destroy();
    this.open.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private track(s: Socket): void {
    this.open.add(s);
    s.once('close', () => this.open.delete(s));
    s.on('error', () => s.destroy());
  }

  private serve(client: Socket): void {
    this.track(client);
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return head.length > 16_384 ? client.destroy() : undefined;
      client.off('data', onData);
      client.pause();
      const lines = head.slice(0, end).split('\r\n');
      const rest = Buffer.from(head.slice(end + 4), 'latin1');
      const [method, target] = lines[0].split(' ');
      const authorization = lines.find((l) => l.toLowerCase().startsWith('proxy-authorization:'))?.slice('proxy-authorization:'.length).trim();
      const answer = (status: number, reason: string) => {
        this.tunnels.push({ target, authorization, status });
        client.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Length: 0\r\n\r\n`);
      };
      if (method !== 'CONNECT') return answer(405, 'Method Not Allowed');
      if (this.opts.credentials && authorization !== `Basic ${Buffer.from(this.opts.credentials).toString('base64')}`) return answer(407, 'Proxy Authentication Required');
      if (this.refuse(target)) return answer(403, 'Forbidden');
      const colon = target.lastIndexOf(':');
      const host = target.slice(0, colon).replace(/^\[|\]$/g, '');
      const upstream = connect({ host: this.opts.hosts?.[host] ?? host, port: Number(target.slice(colon + 1)) });
      this.track(upstream);
      let connected = false;
      upstream.once('error', () => (connected ? client.destroy() : answer(502, 'Bad Gateway')));
      upstream.once('connect', () => {
        connected = true;
        this.tunnels.push({ target, authorization, status: 200 });
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (rest.length) upstream.write(rest);
        client.pipe(upstream).pipe(client);
        client.resume();
        upstream.once('close', () => client.destroy());
        client.once('close', () => upstream.destroy());
      });
    };
    client.on('data', onData);
  }
}
