// Counters and a bounded log of what the simulator received. Cheap by construction: counts are
// plain object increments, the delivery log is a fixed-size ring (0 = keep none), and per-token
// attempt counts can be switched off (then only tokens under a `times` rule are counted, because
// `times` needs them).

export interface DeliveryRecord {
  token: string;
  status: number;
  reason?: string;
  apnsId: string;
  /** Every `apns-*` request header as received. */
  headers: Record<string, string>;
  payload: string;
  /** 1-based number of the HTTP/2 connection (session) the request came on. */
  connection: number;
  receivedAt: number;
  /**
   * A broadcast's channel: set on the broadcast request's own record (token '', `broadcast`
   * true) and on each record of a device subscribed to the channel that received it.
   */
  channelId?: string;
  broadcast?: true;
}

export interface SimStats {
  requests: number;
  byStatus: Record<string, number>;
  byReason: Record<string, number>;
  /** HTTP/2 connections accepted since start / reset. */
  connections: number;
  /** Requests per connection number. */
  byConnection: Record<string, number>;
  /** Streams the simulator broke on purpose (reset-stream / goaway rules). */
  broken: number;
  /** Distinct tokens with an attempt count. */
  tokens: number;
  /** Attempts per token; left out (null) above 10,000 tokens — ask GET /stats?token=. */
  attempts: Record<string, number> | null;
}

const ATTEMPTS_LISTED_UP_TO = 10_000;

export class Recorder {
  private requests = 0;
  private broken = 0;
  private byStatus: Record<string, number> = {};
  private byReason: Record<string, number> = {};
  private byConnection: Record<string, number> = {};
  private connections = 0;
  private attempts = new Map<string, number>();
  private ring: DeliveryRecord[] = [];
  private next = 0;

  constructor(
    private readonly maxDeliveries: number,
    readonly trackTokens: boolean,
    /** Keep only these push types' deliveries (e.g. a benchmark's liveactivity among a broadcast's alerts). */
    private readonly keepPushTypes?: ReadonlySet<string>,
  ) {}

  connectionOpened(): number {
    return ++this.connections;
  }

  /** Counts one attempt for the token and returns its 1-based attempt number. */
  attempt(token: string, force: boolean): number {
    if (!this.trackTokens && !force) return 1;
    const n = (this.attempts.get(token) ?? 0) + 1;
    this.attempts.set(token, n);
    return n;
  }

  attemptsFor(token: string): number {
    return this.attempts.get(token) ?? 0;
  }

  answered(status: number, reason: string | undefined, connection: number): void {
    this.requests++;
    this.byStatus[status] = (this.byStatus[status] ?? 0) + 1;
    if (reason) this.byReason[reason] = (this.byReason[reason] ?? 0) + 1;
    this.byConnection[connection] = (this.byConnection[connection] ?? 0) + 1;
  }

  brokeStream(connection: number): void {
    this.requests++;
    this.broken++;
    this.byConnection[connection] = (this.byConnection[connection] ?? 0) + 1;
  }

  get keepsDeliveries(): boolean {
    return this.maxDeliveries > 0;
  }

  keep(record: DeliveryRecord): void {
    if (this.maxDeliveries <= 0) return;
    if (this.keepPushTypes && !this.keepPushTypes.has(record.headers['apns-push-type'] ?? 'alert')) return;
    if (this.ring.length < this.maxDeliveries) {
      this.ring.push(record);
    } else {
      this.ring[this.next] = record;
      this.next = (this.next + 1) % this.maxDeliveries;
    }
  }

  /** Oldest first; optionally only one token's, or one broadcast channel's (the request and its devices). */
  deliveries(token?: string, channelId?: string): DeliveryRecord[] {
    const ordered = this.ring.length < this.maxDeliveries ? this.ring : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
    return ordered.filter((d) => (token === undefined || d.token === token) && (channelId === undefined || d.channelId === channelId));
  }

  stats(): SimStats {
    return {
      requests: this.requests,
      byStatus: { ...this.byStatus },
      byReason: { ...this.byReason },
      connections: this.connections,
      byConnection: { ...this.byConnection },
      broken: this.broken,
      tokens: this.attempts.size,
      attempts: this.attempts.size <= ATTEMPTS_LISTED_UP_TO ? Object.fromEntries(this.attempts) : null,
    };
  }

  reset(): void {
    this.requests = 0;
    this.broken = 0;
    this.byStatus = {};
    this.byReason = {};
    this.byConnection = {};
    this.connections = 0;
    this.attempts = new Map();
    this.ring = [];
    this.next = 0;
  }
}
