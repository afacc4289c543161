// What a chunk delivers to: the devices it loads, whichever audience they come from (chunks.ts for
// segments, tags and lists; core/live-activities/activity-audience.ts for a Live Activity's
// tokens), and what Apple refused of them (recorded against the install or the Live Activity
// token). A leaf, so the loaders and the recorders share the shapes without importing each other.

/** One device to deliver to. `entry` is the audience entry it counts for (itself for segments). */
export interface Device {
  entry: string;
  /** The install (subscriptions.id): what a refusal or a delivered end is recorded against. */
  subscriptionId: string;
  /** The install's seq (subscriptions.seq, as text): what the chunk's history keeps (migration 050). Absent for a Live Activity token. */
  seq?: string;
  token: string;
  language: string | null;
  /** The gateway its token belongs to; null = the App's environment. */
  environment: 'production' | 'sandbox' | null;
  /** subscriptions.platform (migration 071): 'android' goes to FCM; absent or 'ios' to APNs. */
  platform?: 'ios' | 'android';
}

export interface ChunkDevices {
  devices: Device[];
  /** Audience entries of the chunk: devices for segment/tag, given ids for lists. */
  entries: string[];
}

/** A token Apple refused: its reason and, for a 410, when Apple found it invalid (ms since epoch). */
export interface RefusedToken {
  /** The install it was sent for: a Live Activity token is found by its primary key with it. */
  subscriptionId: string;
  token: string;
  reason: string;
  appleTimestampMs?: number;
}

/**
 * A chunk's devices by outcome, as the install seqs its row keeps for the send's history
 * (migration 050; getNotificationHistory, exportEvents). A device left out (the send stopped) is
 * in none; `unsubscribed` is the part of `failed` whose token Apple refused for good.
 */
export interface ChunkHistory {
  sent: string[];
  failed: string[];
  /** Apple's reason (or Herald's, e.g. RedeliveryExhausted) for each of `failed`, in its order. */
  reasons: string[];
  unsubscribed: string[];
}
