// The lean transport's connections, as many as the streams in flight need (issue 37): Apple
// serves about 500 streams on a connection, so at its 40–100 ms round trip two connections cap a
// sender at 5,000–12,500 devices a second. A new connection opens when the messages waiting
// exceed the room of those open (a connecting one counts for the stream limit the last SETTINGS
// gave, ours until any came), up to `maxConnections`; so the peer lowering its limit (to 1 after
// a refusal) brings more connections, never more streams on one. Connections go round the
// addresses the gateway's name resolves to (Apple's advice: many connections, over its hosts),
// by name through an egress proxy (the proxy resolves). They stay open; the connection closes
// itself after IDLE_CLOSE_MS without a request (connection.ts).
import { isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import type { H2Connection } from './connection.js';

/** A failed connect is not retried at once (no spinning on a refused port). */
const RECONNECT_PAUSE_MS = 1000;
/** The gateway's addresses are looked up again this often, when a connection opens. */
const RESOLVE_EVERY_MS = 60_000;

export type ResolveAll = (host: string) => Promise<string[]>;

export const resolveAll: ResolveAll = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

export interface PoolSettings {
  maxConnections: number;
  /** Our streams per connection (HERALD_APNS_MAX_STREAMS). */
  maxStreams: number;
  /** The gateway's host name (or address). */
  host: string;
  /** Connections go to the name (the proxy resolves it) rather than to its addresses. */
  byName: boolean;
  resolve: ResolveAll;
  /** Opens a connection to `address` (the name itself when unresolved), presenting `host`'s name. */
  open(address: string): H2Connection;
}

export interface PoolSnapshot {
  open: number;
  /** Open connections per address they went to. */
  byAddress: Record<string, number>;
}

export class ConnectionPool {
  private conns: H2Connection[] = [];
  readonly retiring = new Set<H2Connection>();
  private failedAt = 0;
  private peerLimit: number;
  private addresses: string[] | undefined;
  private resolvedAt = 0;
  private resolving = false;
  private next = 0;

  constructor(private readonly s: PoolSettings, private readonly changed: () => void) {
    this.peerLimit = s.maxStreams;
  }

  /**
   * The connections with room now, after opening those `waiting` messages need; undefined when
   * none is open or opening (every connect failed just now): nothing can carry them.
   */
  carriers(waiting: number): H2Connection[] | undefined {
    const now = Date.now();
    let room = 0;
    this.conns = this.conns.filter((conn) => {
      if (conn.state === 'draining') this.retiring.add(conn); // after a GOAWAY it only finishes its streams
      if (conn.state === 'closed' && !conn.everReady) this.failedAt = now;
      if (conn.state !== 'ready' && conn.state !== 'connecting') return false;
      if (conn.state === 'ready') this.peerLimit = conn.streamLimit();
      return true;
    });
    for (const conn of this.retiring) if (conn.state === 'closed') this.retiring.delete(conn);
    // A congested socket (write() said false) frees up at its 'drain': its streams count as room.
    for (const conn of this.conns) room += conn.state === 'ready' ? Math.max(0, conn.streamLimit() - conn.inFlight()) : this.peerLimit;
    while (waiting > room && this.conns.length < this.s.maxConnections && now - this.failedAt >= RECONNECT_PAUSE_MS) {
      this.conns.push(this.s.open(this.address()));
      room += this.peerLimit;
    }
    if (this.conns.length === 0) return undefined;
    return this.conns.filter((c) => c.spare() > 0);
  }

  snapshot(): PoolSnapshot {
    const byAddress: Record<string, number> = {};
    for (const c of this.conns) byAddress[c.host] = (byAddress[c.host] ?? 0) + 1;
    return { open: this.conns.length, byAddress };
  }

  all(): H2Connection[] {
    return [...this.conns, ...this.retiring];
  }

  /** The address with the fewest of our connections, in turn; the name until it resolved. */
  private address(): string {
    const { host } = this.s;
    if (this.s.byName || isIP(host)) return host;
    if (!this.resolving && Date.now() - this.resolvedAt >= RESOLVE_EVERY_MS) this.lookUp();
    const list = this.addresses;
    if (!list?.length) return host;
    const counts = new Map(list.map((a) => [a, 0]));
    for (const c of this.conns) if (counts.has(c.host)) counts.set(c.host, counts.get(c.host)! + 1);
    const fewest = Math.min(...counts.values());
    for (let k = 0; k < list.length; k++) {
      const a = list[(this.next + k) % list.length];
      if (counts.get(a) === fewest) {
        this.next = (this.next + k + 1) % list.length;
        return a;
      }
    }
    return host;
  }

  private lookUp(): void {
    this.resolving = true;
    this.s.resolve(this.s.host).then(
      (found) => {
        this.addresses = [...new Set(found)];
        this.resolvedAt = Date.now();
      },
      // Unresolvable now: connections go to the name (and fail as any connect does).
      () => (this.resolvedAt = Date.now()),
    ).finally(() => {
      this.resolving = false;
      this.changed();
    });
  }
}
