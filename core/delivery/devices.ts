// What a chunk delivers to: the devices it loads, whichever audience they come from (chunks.ts for
// segments, tags and lists; core/live-activities/activity-audience.ts for a Live Activity's
// tokens). A leaf, so both loaders share the shape without importing each other.

/** One device to deliver to. `entry` is the audience entry it counts for (itself for segments). */
export interface Device {
  entry: string;
  /** The install (subscriptions.id): what a refusal or a delivered end is recorded against. */
  subscriptionId: string;
  token: string;
  language: string | null;
  /** The gateway its token belongs to; null = the App's environment. */
  environment: 'production' | 'sandbox' | null;
}

export interface ChunkDevices {
  devices: Device[];
  /** Audience entries of the chunk: devices for segment/tag, given ids for lists. */
  entries: string[];
}
