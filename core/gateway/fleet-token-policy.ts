// How long a gateway's token lives and how often it may be replaced (fleet-token-store.ts, and
// core/apns/provider-token.ts's in-process source): one place for the numbers.

export interface FleetTokenPolicy {
  /** The gateway refuses a newer token sooner than this after the last (Apple: 20 min). */
  minAgeMs: number;
  /** A token this old is replaced by the next process that asks (before it expires). */
  renewAfterMs: number;
  /** What the gateway accepts a token for (Apple: 60 min); its expires_at. */
  lifetimeMs: number;
}

/** Apple's rule: refreshed at most once per 20 minutes and at least once per 60 (50 leaves room). */
export const APNS_TOKEN_POLICY: FleetTokenPolicy = { minAgeMs: 20 * 60_000, renewAfterMs: 50 * 60_000, lifetimeMs: 60 * 60_000 };

/**
 * Google's OAuth access tokens for FCM (issue 39's gateway): valid an hour (expires_in 3599), no
 * limit on how often one is fetched, so a refused one is replaced at once.
 */
export const FCM_TOKEN_POLICY: FleetTokenPolicy = { minAgeMs: 0, renewAfterMs: 50 * 60_000, lifetimeMs: 59 * 60_000 };
