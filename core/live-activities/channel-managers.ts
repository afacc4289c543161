// Channel management clients for the apps' broadcast channels (core/apns/channel-management.ts),
// shared by the api (a channel at a start, room made under the quota) and the scheduler's channel
// sweep (deletion). One provider token per app, kept across calls, the fleet's when cli/ gives
// the sources: Apple refuses a token refreshed more often than every 20 minutes
// (TooManyProviderTokenUpdates); a new key gets a new one. Also the one rule for a failure's metric label.
import type { Queryable } from '../store/db.js';
import { getCredentials } from '../apps/app-store.js';
import { toApnsCredentials } from '../apns/clients.js';
import type { ApnsCredentials, ProviderTokenSources } from '../apns/types.js';
import { localTokenSource } from '../apns/provider-token.js';
import { PresentedToken } from '../apns/presented-token.js';
import { createChannelManager, type ChannelManager } from '../apns/channel-management.js';
import type { Dialer } from '../net/dialer.js';

export interface ChannelManagementSettings {
  /** HERALD_APNS_BROADCAST_URL: overrides Apple's channel management host. */
  broadcastUrl?: string;
  /** Content of HERALD_APNS_CA_FILE. */
  ca?: string;
  /** The way out (HTTPS_PROXY, NO_PROXY: core/net/dialer.ts); direct when absent. */
  dialer?: Dialer;
  /** The fleet's provider tokens (cli/: the store-backed sources); absent, minted in this process. */
  providerTokens?: ProviderTokenSources;
}

export interface ChannelOwner {
  id: string;
  bundleId: string;
  environment: 'production' | 'sandbox';
}

export class ChannelManagers {
  private readonly signers = new Map<string, { material: string; signer: PresentedToken }>();

  constructor(
    private readonly db: Queryable,
    private readonly settings: ChannelManagementSettings,
  ) {}

  /** A manager for the app's channels in `owner.environment` (close it after use); undefined: the app has no credentials. Throws when they do not unseal or sign. */
  async open(owner: ChannelOwner): Promise<ChannelManager | undefined> {
    const stored = await getCredentials(this.db, owner.id);
    if (!stored) return undefined;
    const credentials = toApnsCredentials(stored);
    const target = { credentials, topic: owner.bundleId, environment: owner.environment, url: this.settings.broadcastUrl, ca: this.settings.ca };
    return createChannelManager(target, { signer: this.signerFor(owner.id, credentials), dialer: this.settings.dialer });
  }

  private signerFor(appId: string, credentials: ApnsCredentials): PresentedToken | undefined {
    if (credentials.kind !== 'token') return undefined;
    const material = `${credentials.keyId}\n${credentials.teamId}\n${credentials.keyP8}`;
    const kept = this.signers.get(appId);
    if (kept?.material === material) return kept.signer;
    const signer = new PresentedToken(this.settings.providerTokens?.(credentials) ?? localTokenSource(credentials.keyP8, credentials.keyId, credentials.teamId));
    this.signers.set(appId, { material, signer });
    return signer;
  }
}

/**
 * The reasons a channel failure is counted and shown under: Apple's documented reasons for the
 * management and broadcast calls, the client's own (status 0) and Herald's; anything else is
 * `Other`, so the metric's labels stay a bounded set whatever a server answers.
 */
const KNOWN_REASONS = new Set([
  // Apple (docs/apns.md "Broadcast push")
  'BadChannelId', 'MissingChannelId', 'CannotCreateChannelConfig', 'BadMessageStoragePolicy', 'InvalidPushType', 'BadRequestId',
  'BadPayload', 'BadExpirationDate', 'PayloadTooLarge', 'PayloadEmpty', 'BadPriority', 'TooManyRequests', 'InternalServerError',
  'ServiceUnavailable', 'Shutdown', 'ExpiredProviderToken', 'InvalidProviderToken', 'MissingProviderToken', 'TooManyProviderTokenUpdates',
  'Forbidden', 'BadCertificate', 'BadCertificateEnvironment', 'BadPath', 'MethodNotAllowed', 'BadTopic', 'TopicDisallowed',
  // the client's (status 0) and Herald's
  'ConnectionError', 'Timeout', 'BodyTooLarge', 'BadBody', 'NoChannelId', 'Unframeable', 'NoCredentials', 'CredentialsUnusable',
  'QuotaReached', 'Error',
]);

export function channelFailureReason(reason: string | undefined, status: number): string {
  if (reason && KNOWN_REASONS.has(reason)) return reason;
  return status >= 500 ? 'Status5xx' : status >= 400 ? 'Status4xx' : 'Other';
}
