// What fcm-sim received: counters, attempts per token, and a bounded log of messages (a ring;
// 0 keeps none) that tests and `make dev` read.

export interface FcmDelivery {
  token: string;
  projectId: string;
  status: number;
  errorCode?: string;
  /** The message as received (the body's `message`). */
  message: Record<string, unknown>;
  receivedAt: number;
}

export interface FcmSimStats {
  requests: number;
  byStatus: Record<string, number>;
  byErrorCode: Record<string, number>;
  connections: number;
  /** Access tokens issued per client email. */
  tokensMinted: Record<string, number>;
}

export class FcmRecorder {
  private requests = 0;
  private byStatus: Record<string, number> = {};
  private byErrorCode: Record<string, number> = {};
  connections = 0;
  private attempts = new Map<string, number>();
  private ring: FcmDelivery[] = [];
  private next = 0;

  constructor(private readonly maxDeliveries: number) {}

  /** Counts an attempt for the token; returns its number (1 for the first). */
  attempt(token: string): number {
    const n = (this.attempts.get(token) ?? 0) + 1;
    this.attempts.set(token, n);
    return n;
  }

  attemptsFor(token: string): number {
    return this.attempts.get(token) ?? 0;
  }

  answered(status: number, errorCode: string | undefined, delivery?: FcmDelivery): void {
    this.requests++;
    this.byStatus[status] = (this.byStatus[status] ?? 0) + 1;
    if (errorCode) this.byErrorCode[errorCode] = (this.byErrorCode[errorCode] ?? 0) + 1;
    if (!delivery || this.maxDeliveries === 0) return;
    if (this.ring.length < this.maxDeliveries) this.ring.push(delivery);
    else this.ring[this.next] = delivery;
    this.next = (this.next + 1) % this.maxDeliveries;
  }

  /** Oldest first; only `token`'s when given. */
  deliveries(token?: string): FcmDelivery[] {
    const ordered = this.ring.length < this.maxDeliveries ? this.ring : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
    return token === undefined ? [...ordered] : ordered.filter((d) => d.token === token);
  }

  stats(tokensMinted: Record<string, number>): FcmSimStats {
    return { requests: this.requests, byStatus: { ...this.byStatus }, byErrorCode: { ...this.byErrorCode }, connections: this.connections, tokensMinted: { ...tokensMinted } };
  }

  reset(): void {
    this.requests = 0;
    this.byStatus = {};
    this.byErrorCode = {};
    this.connections = 0;
    this.attempts.clear();
    this.ring = [];
    this.next = 0;
  }
}
