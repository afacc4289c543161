// An App's FCM access token (issue 39 point 2): minted from its service account, one at a time,
// shared by every request, renewed shortly before it expires and once when FCM answers 401 for it,
// never one per request. This is the in-process FleetTokenSource; a store-backed source that shares
// the token across processes (core/gateway/) takes the same interface.
import type { KeyObject } from 'node:crypto';
import type { Dialer } from '../net/dialer.js';
import type { FleetToken, FleetTokenSource } from '../gateway/fleet-token.js';
import type { FcmServiceAccount } from './credentials-store.js';
import { loadServiceAccountKey, signAssertion, tokenRequestBody } from './assertion.js';
import { postAssertion } from './token-endpoint.js';

/** The token endpoint refused the App's assertion (its key, account or project): a credentials refusal. */
export class FcmCredentialsRefusedError extends Error {
  override name = 'FcmCredentialsRefusedError';
  constructor(
    readonly status: number,
    readonly error: string,
  ) {
    super(`the token endpoint refused the service account (${status} ${error})`);
  }
}

/** No token could be had (the endpoint unreachable, failing or answering nonsense): an outage. */
export class FcmTokenUnavailableError extends Error {
  override name = 'FcmTokenUnavailableError';
}

export interface AccessTokenOptions {
  ca?: string;
  dialer?: Dialer;
  /** Renew this long before expiry (default 5 minutes, as Google's libraries do), at most a quarter of the token's life. */
  renewBeforeMs?: number;
  /** The clock (tests). */
  now?: () => number;
  timeoutMs?: number;
}

const RENEW_BEFORE_MS = 5 * 60_000;
const REFUSAL_KEPT_MS = 60_000;

export class FcmAccessTokens implements FleetTokenSource {
  private readonly key: KeyObject;
  private token: (FleetToken & { renewAt: number }) | undefined;
  private minting: Promise<FleetToken> | undefined;
  /** The endpoint's last refusal, repeated without asking again for a minute (Google is not asked per chunk). */
  private refusal: { error: FcmCredentialsRefusedError; until: number } | undefined;
  private readonly now: () => number;
  /** Tokens minted by this source (the "one per App per hour" is read from it). */
  minted = 0;

  constructor(
    private readonly account: FcmServiceAccount,
    private readonly opts: AccessTokenOptions = {},
  ) {
    this.key = loadServiceAccountKey(account);
    this.now = opts.now ?? Date.now;
  }

  current(): Promise<FleetToken> {
    const t = this.token;
    if (t && this.now() < t.renewAt) return Promise.resolve(t);
    return this.mint();
  }

  renew(stale: FleetToken): Promise<FleetToken> {
    // Another request already replaced it: that one, not a second mint.
    if (this.token && this.token.value !== stale.value && this.now() < this.token.renewAt) return Promise.resolve(this.token);
    return this.mint();
  }

  /**
   * A token fresh from the endpoint, whatever this process holds: the fleet store's minter
   * (fleet-access-tokens.ts), which asks only when no process's token is valid.
   */
  fresh(): Promise<FleetToken> {
    return this.mint();
  }

  /** One mint at a time: concurrent callers share it. */
  private mint(): Promise<FleetToken> {
    this.minting ??= this.exchange().finally(() => {
      this.minting = undefined;
    });
    return this.minting;
  }

  private async exchange(): Promise<FleetToken> {
    const issued = this.now();
    if (this.refusal && issued < this.refusal.until) throw this.refusal.error;
    const assertion = signAssertion(this.account, this.key, Math.floor(issued / 1000));
    const answer = await postAssertion(this.account.tokenUri, tokenRequestBody(assertion), this.opts);
    if (answer.kind === 'refused') {
      const error = new FcmCredentialsRefusedError(answer.status, answer.error);
      this.refusal = { error, until: issued + REFUSAL_KEPT_MS };
      throw error;
    }
    this.refusal = undefined;
    if (answer.kind === 'unavailable') throw new FcmTokenUnavailableError(answer.detail);
    const lifeMs = answer.expiresInS * 1000;
    const margin = Math.min(this.opts.renewBeforeMs ?? RENEW_BEFORE_MS, lifeMs / 4);
    this.minted++;
    this.token = { value: answer.accessToken, issuedAt: new Date(issued), expiresAt: new Date(issued + lifeMs), renewAt: issued + lifeMs - margin };
    return this.token;
  }
}
