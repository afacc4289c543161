// The rate buckets of the contract ("Limits" → "Rate limits") and the SDK's per-IP bucket
// (DECISIONS "app-facing interfaces": rate-limited per IP). One table, read by every adapter.

export type BucketName = 'send' | 'broadcast' | 'read' | 'audience' | 'ip' | 'anonymous' | 'sdk' | 'users' | 'export' | 'estimate';

export interface BucketSpec {
  readonly name: BucketName;
  /** Tokens added per window (the contract's "Refill"). */
  readonly rate: number;
  readonly windowSeconds: number;
  /** Capacity (the contract's "Holds"). */
  readonly burst: number;
}

export const BUCKETS: Readonly<Record<BucketName, BucketSpec>> = Object.freeze({
  send: { name: 'send', rate: 50, windowSeconds: 1, burst: 100 },
  broadcast: { name: 'broadcast', rate: 30, windowSeconds: 60, burst: 10 },
  read: { name: 'read', rate: 20, windowSeconds: 1, burst: 40 },
  audience: { name: 'audience', rate: 10, windowSeconds: 60, burst: 10 },
  ip: { name: 'ip', rate: 6000, windowSeconds: 60, burst: 6000 },
  anonymous: { name: 'anonymous', rate: 120, windowSeconds: 60, burst: 120 },
  // Not in the contract: installs behind one carrier NAT share an address, and an app launch
  // makes one or two calls, so 20 a second with a minute's worth of burst is generous for
  // real devices and still stops a script hammering the public, app-id-only endpoints.
  sdk: { name: 'sdk', rate: 1200, windowSeconds: 60, burst: 1200 },
  // Not in the contract (issue 27): the user and alias calls that change something, per key. A
  // backend syncing its accounts' tags makes one call per account, far above a send's 50 a second;
  // a user's write is a few rows (its installs), not an audience, so 1,000 a second per key.
  // The segment calls' writes draw it too (one row each; issue 27 point 3, docs/api.md "Segments").
  users: { name: 'users', rate: 1000, windowSeconds: 1, burst: 2000 },
  // Not in the contract (issue 27): exportSubscriptions, per key. Each link is a whole audience
  // read when fetched (10,000,000 installs take a pool connection for a minute or more), which
  // no other bucket prices: 60 an hour, 10 at once, is a backup an hour with room for retries.
  export: { name: 'export', rate: 60, windowSeconds: 3600, burst: 10 },
  // Not in the contract (issue 30 review): estimateNotificationRecipients of a segment, tag or
  // `filters` body, per key. It runs the count a broadcast send runs (~0.4 s of database time on a
  // 1,000,000-install tag), so it is priced as `broadcast`; a list body stays `read` (≤ 500 ids).
  // Not the app's `audience` bucket: sends draw it, and a read key's estimates must not refuse them.
  estimate: { name: 'estimate', rate: 30, windowSeconds: 60, burst: 10 },
});

/** Milliseconds between two tokens (GCRA's emission interval). */
export function intervalMs(spec: BucketSpec): number {
  return (spec.windowSeconds * 1000) / spec.rate;
}

/** One RateLimit-Policy entry: `<rate>;w=<window seconds>;burst=<capacity>;name="<bucket>"` (DECISIONS "Limits"). */
export function policyEntry(spec: BucketSpec): string {
  return `${spec.rate};w=${spec.windowSeconds};burst=${spec.burst};name="${spec.name}"`;
}
