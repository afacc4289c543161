// The production FCM token source (clients.ts FcmSettings.tokens): an App's access token kept in
// PostgreSQL (core/gateway/fleet-token-store.ts, migration 060) and presented alike by every
// sender, minted from Google's token endpoint only by the process that finds none valid, so the
// fleet asks Google about once an hour per service account whatever its size (issue 39 point 2,
// "a fleet-wide fact, kept as the fleet issue keeps Apple's provider token"). Each token this
// process mints is counted on herald_provider_tokens_minted_total{gateway="fcm"} and logged,
// never its value.
import { createHash } from 'node:crypto';
import type { Counter } from 'prom-client';
import type { Logger } from '../log.js';
import type { Pool } from '../store/db.js';
import type { FleetTokenSource } from '../gateway/fleet-token.js';
import { FCM_TOKEN_POLICY, StoredFleetToken } from '../gateway/fleet-token-store.js';
import type { FcmAccessTokens } from './access-token.js';
import type { FcmServiceAccount } from './credentials-store.js';

/**
 * The store row's name: the account and a digest of its key, so a new key (a rotated service
 * account key) is a new row and never reads a token minted with the old one. Never the key.
 */
export function fcmTokenIdentity(account: FcmServiceAccount): string {
  const digest = createHash('sha256').update(account.privateKey).digest('hex').slice(0, 16);
  return `${account.clientEmail}/${account.projectId}/${digest}`;
}

export function fleetFcmTokens(pool: Pool, logger: Logger, minted: Counter<'gateway' | 'why'>) {
  return (account: FcmServiceAccount, inProcess: FcmAccessTokens): FleetTokenSource =>
    new StoredFleetToken(pool, { kind: 'fcm', identity: fcmTokenIdentity(account) }, {
      policy: FCM_TOKEN_POLICY,
      mint: async () => (await inProcess.fresh()).value,
      minted: (_, why) => {
        minted.inc({ gateway: 'fcm', why });
        logger.info({ gateway: 'fcm', clientEmail: account.clientEmail, projectId: account.projectId, why }, 'FCM access token minted for the fleet');
      },
    });
}
