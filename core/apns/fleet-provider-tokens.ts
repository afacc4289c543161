// The production ProviderTokenSources (types.ts): each team's key gets the fleet's token from
// PostgreSQL (core/gateway/fleet-token-store.ts), so every api, sender and controller presents
// the same JWT until it is renewed (issue 37). cli/ builds one per process and hands it to the
// APNs clients and the channel managers; each token this process mints is counted
// (herald_provider_tokens_minted_total) and said once in the log, without the token.
import { Counter, type Registry } from 'prom-client';
import type { Logger } from '../log.js';
import type { Pool } from '../store/db.js';
import type { FleetTokenSource } from '../gateway/fleet-token.js';
import { APNS_TOKEN_POLICY, StoredFleetToken } from '../gateway/fleet-token-store.js';
import { providerKey, providerTokenIdentity, signProviderToken } from './provider-token.js';
import type { ProviderTokenSources, TokenCredentials } from './types.js';

export class FleetProviderTokens {
  readonly minted = new Counter({
    name: 'herald_provider_tokens_minted_total',
    help: 'Provider tokens this process minted for the fleet (none held, due for renewal, or refused as expired); every other process reads them',
    labelNames: ['gateway', 'why'] as const,
    registers: [],
  });
  private readonly sources = new Map<string, FleetTokenSource>();

  constructor(
    private readonly pool: Pool,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Puts the counter on a role's /metrics. */
  register(registry: Registry): void {
    registry.registerMetric(this.minted);
  }

  /** What the APNs clients and channel managers take (ApnsClientOptions.providerTokens). */
  readonly source: ProviderTokenSources = (c: TokenCredentials) => {
    const key = providerKey(c.keyP8, c.keyId);
    const identity = providerTokenIdentity(key, c.keyId, c.teamId);
    let source = this.sources.get(identity);
    if (!source) {
      source = new StoredFleetToken(this.pool, { kind: 'apns', identity }, {
        policy: APNS_TOKEN_POLICY,
        mint: async () => signProviderToken(key, c.keyId, c.teamId, this.now()),
        minted: (_, why) => {
          this.minted.inc({ gateway: 'apns', why });
          this.logger.info({ gateway: 'apns', teamId: c.teamId, keyId: c.keyId, why }, 'provider token minted for the fleet');
        },
      });
      this.sources.set(identity, source);
    }
    return source;
  };
}
