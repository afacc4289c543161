// The simulator's broadcast channels (Apple, "Sending channel management requests to APNs" and
// "Sending broadcast push notification requests to APNs"): per bundle id, the channels a provider
// created, each with its message storage policy, the devices a test subscribed to it (on a real
// device ActivityKit does that; here the control endpoint does) and, under policy 1, the most
// recent message, which a device subscribing later receives.
import { randomBytes } from 'node:crypto';

/** Apple: "up to 10,000 channels for your app in the development and production environment, respectively". */
export const APPLE_MAX_CHANNELS = 10_000;
/**
 * The simulator's own bound on bundle ids holding channels: the per-bundle cap alone lets a
 * client that names a new bundle id each time grow the store without end.
 */
export const MAX_BUNDLES = 1_000;
/** 0: no message stored; 1: the most recent message stored (Apple's two policies). */
export type StoragePolicy = 0 | 1;

export interface StoredMessage {
  apnsId: string;
  headers: Record<string, string>;
  payload: string;
  /** apns-expiration as sent (seconds since the epoch; 0 = deliver now or never). */
  expiration: number;
}

export interface Channel {
  id: string;
  bundleId: string;
  policy: StoragePolicy;
  createdAt: number;
  devices: Set<string>;
  lastMessage?: StoredMessage;
}

/** Apple's channel ids are base64 text of 16 bytes (24 characters with padding). */
export { isChannelId as isChannelIdShape } from '../core/formats/channel-id.js';

export class ChannelStore {
  private readonly byBundle = new Map<string, Map<string, Channel>>();

  constructor(
    readonly maxPerApp = APPLE_MAX_CHANNELS,
    readonly maxBundles = MAX_BUNDLES,
  ) {}

  /** The new channel, or undefined when the bundle id holds its maximum already, or the store its bundle ids. */
  create(bundleId: string, policy: StoragePolicy): Channel | undefined {
    let channels = this.byBundle.get(bundleId);
    if (!channels) {
      if (this.byBundle.size >= this.maxBundles) return undefined;
      this.byBundle.set(bundleId, (channels = new Map()));
    }
    if (channels.size >= this.maxPerApp) return undefined;
    const channel: Channel = { id: randomBytes(16).toString('base64'), bundleId, policy, createdAt: Date.now(), devices: new Set() };
    channels.set(channel.id, channel);
    return channel;
  }

  get(bundleId: string, id: string): Channel | undefined {
    return this.byBundle.get(bundleId)?.get(id);
  }

  /** Any bundle's channel by id (the control endpoint names only the id). */
  find(id: string): Channel | undefined {
    for (const channels of this.byBundle.values()) {
      const channel = channels.get(id);
      if (channel) return channel;
    }
    return undefined;
  }

  list(bundleId: string): string[] {
    return [...(this.byBundle.get(bundleId)?.keys() ?? [])];
  }

  delete(bundleId: string, id: string): boolean {
    const channels = this.byBundle.get(bundleId);
    const deleted = channels?.delete(id) ?? false;
    // A bundle id without channels frees its place among the bundle ids.
    if (channels && channels.size === 0) this.byBundle.delete(bundleId);
    return deleted;
  }

  clear(): void {
    this.byBundle.clear();
  }
}
