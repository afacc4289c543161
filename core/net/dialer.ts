// The one way out (plan: "Every outbound connection goes through one dialer"): Apple's gateway
// and channel management host, FCM and Google's token endpoint, and the apps' webhook
// destinations connect through a Dialer, which sends each connection through the egress proxy
// (HTTPS_PROXY) unless NO_PROXY exempts its host. PostgreSQL, Redis, NATS and the Kubernetes API
// are the cluster's own servers and never use it. cli/ builds the one Dialer of a process and
// passes it in; the CA files and client certificates stay the caller's TLS options.
//
// A proxy that is down, restarts or refuses a tunnel is an outage like the vendor's own: the
// connection fails, its callers hold or retry (no device is failed for it), and the next
// connection goes through the proxy again. It is said once in the log (egress-state.ts) and in
// the gauges herald_egress_proxy_up and herald_egress_tunnels_refused (egress-metrics.ts).
import { connect as netConnect, type LookupFunction, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import type { SessionOptions } from 'node:http2';
import type { ClientRequestArgs } from 'node:http';
import type { Logger } from '../log.js';
import { bypassesProxy, type NoProxy, type ProxyAddress } from '../formats/proxy-settings.js';
import { openTunnel } from './tunnel.js';
import { PendingSocket } from './pending-socket.js';
import { EgressState, type EgressSnapshot } from './egress-state.js';

export interface EgressTarget {
  host: string;
  port: number;
}

export interface DialOptions {
  /**
   * Resolves (and checks) the target's name before anything is opened: direct, the connection
   * takes its answer; through the proxy, the tunnel goes to the address it answered, so the
   * proxy cannot resolve the name to another one (webhooks' SSRF rules, core/events/checked-lookup.ts).
   */
  lookup?: LookupFunction;
}

export interface Dialer {
  /** Whether a connection to the target goes through the proxy. */
  proxied(target: EgressTarget): boolean;
  /** A TCP connection to the target (through a CONNECT tunnel, or direct). */
  connect(target: EgressTarget, opts?: DialOptions): Promise<Socket>;
  /** A TLS socket at once; the tunnel and the handshake happen behind it (the lean APNs transport). */
  tls(target: EgressTarget, options: ConnectionOptions): TLSSocket;
  /** node:http2 connect()'s `createConnection`: the session's TLS socket through this dialer (with the TLS options given to connect()). */
  http2Connection(): (authority: URL, options: SessionOptions) => Duplex;
  /** node:http / node:https request()'s `createConnection` (callback form); `tls` for https. */
  requestConnection(opts?: DialOptions & { tls?: ConnectionOptions }): (options: ClientRequestArgs, done: (error: Error | null, socket: Duplex) => void) => undefined;
  /** The proxy's state for the gauges; undefined without a proxy. */
  state(): EgressSnapshot | undefined;
}

export interface DialerSettings {
  /** HTTPS_PROXY; absent: every connection direct. */
  proxy?: ProxyAddress;
  noProxy?: NoProxy;
  logger?: Logger;
  /** How long the proxy may take to answer CONNECT (default 10 s, the gateway's request timeout). */
  tunnelTimeoutMs?: number;
}

const TUNNEL_TIMEOUT_MS = 10_000;

const bare = (host: string) => host.replace(/^\[|\]$/g, '');

/** Resolves `host` with `lookup` (one address), or rejects with its error. */
function resolveWith(lookup: LookupFunction, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    lookup(host, { all: false }, (error, address) => (error ? reject(error) : resolve(address as string)));
  });
}

/** A connected TCP socket opened directly (node:net), or its error. */
function direct(target: EgressTarget, lookup?: LookupFunction): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: target.host, port: target.port, lookup });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

export function createDialer(settings: DialerSettings = {}): Dialer {
  const { proxy } = settings;
  const state = proxy ? new EgressState(proxy.display, settings.logger) : undefined;
  const timeoutMs = settings.tunnelTimeoutMs ?? TUNNEL_TIMEOUT_MS;

  const proxied = (target: EgressTarget) => proxy !== undefined && !(settings.noProxy && bypassesProxy(settings.noProxy, bare(target.host), target.port));

  async function connect(target: EgressTarget, opts: DialOptions = {}): Promise<Socket> {
    const host = bare(target.host);
    if (!proxy || !proxied(target)) return direct({ host, port: target.port }, isIP(host) ? undefined : opts.lookup);
    // The destination's checks come before the tunnel: the proxy is given the checked address.
    const address = opts.lookup && !isIP(host) ? await resolveWith(opts.lookup, host) : host;
    try {
      const socket = await openTunnel(proxy, { host: address, port: target.port }, timeoutMs);
      state?.opened(address, target.port);
      return socket;
    } catch (error) {
      state?.failed(address, target.port, error);
      throw error;
    }
  }

  function tls(target: EgressTarget, options: ConnectionOptions): TLSSocket {
    const host = bare(target.host);
    const servername = options.servername ?? (isIP(host) ? undefined : host);
    // Direct: node:tls opens the socket itself, exactly as before there was a dialer.
    if (!proxied(target)) return tlsConnect({ ...options, host, port: target.port, servername });
    return tlsConnect({ ...options, host, port: target.port, servername, socket: new PendingSocket(connect(target)) });
  }

  return {
    proxied,
    connect,
    tls,
    // node:http2 hands createConnection the options given to connect(): the caller's TLS options,
    // whose host and port win over the authority's, as in node:http2's own connection (node-apn
    // names its port there).
    http2Connection: () => (authority, options) => {
      const o = options as ConnectionOptions;
      return tls({ host: o.host ?? authority.hostname, port: Number(o.port ?? (authority.port || 443)) }, { ...o, ALPNProtocols: ['h2'] });
    },
    requestConnection: (opts = {}) => (options, done) => {
      const target = { host: bare(String(options.hostname ?? options.host ?? 'localhost')), port: Number(options.port) };
      connect(target, opts).then(
        // https: the request is written into the TLS socket, which sends it once the handshake is done.
        (socket) => done(null, opts.tls ? tlsConnect({ ...opts.tls, socket, servername: opts.tls.servername ?? (isIP(target.host) ? undefined : target.host) }) : socket),
        // node:http takes the error and never looks at the socket then.
        (error: Error) => done(error, undefined as never),
      );
      return undefined;
    },
    state: () => state?.snapshot(),
  };
}

/** Every connection direct: the default where no dialer is given (tests, tools). */
export const directDialer: Dialer = createDialer();
