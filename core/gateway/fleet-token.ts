// A credential the whole fleet presents alike (plan: "Fleet-wide facts live in the store, not in a
// process"): Apple's provider token for an App's team and key, FCM's access token for an App's
// service account. Every process (api, senders, controller) asks its source and presents what it
// gets; none mints one of its own. The store-backed source is the production adapter; a gateway
// client only sees this interface.
export interface FleetToken {
  /** What goes in the Authorization header after the scheme. */
  value: string;
  issuedAt: Date;
  expiresAt: Date;
}

export interface FleetTokenSource {
  /** The token to present now: the fleet's current one, minted by whichever process finds none valid. */
  current(): Promise<FleetToken>;
  /**
   * The gateway refused `stale` as expired or unknown (Apple's ExpiredProviderToken, FCM's 401):
   * the fleet's newer token, minted only when no process has already replaced `stale` and the
   * gateway's minimum age allows it.
   */
  renew(stale: FleetToken): Promise<FleetToken>;
}
