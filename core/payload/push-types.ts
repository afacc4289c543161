// Apple's push types, each with the topic it needs and the priority Herald gives it when the
// request names none, in one table that the payload builders, the transports and the simulator
// read (Apple, "Sending notification requests to APNs": apns-push-type, apns-topic,
// apns-priority). Herald sends alert, background and liveactivity pushes; the others are here so
// the simulator knows their topics.

export type HeraldPushType = 'alert' | 'background' | 'liveactivity';

interface PushTypeRule {
  /** apns-topic is the bundle id followed by this. */
  topicSuffix: string;
  /** apns-priority when the request names none (absent: Apple's default, 10). */
  defaultPriority?: 5 | 10;
  /** The only priorities Apple takes for this type (absent: 1, 5 and 10). */
  priorities?: readonly string[];
}

export const PUSH_TYPES: Record<string, PushTypeRule> = {
  alert: { topicSuffix: '' },
  // Apple: a background push must go at priority 5.
  background: { topicSuffix: '', defaultPriority: 5, priorities: ['5'] },
  // ActivityKit pushes go at 5 or 10; 10 by default (docs/decisions.md "Live Activities": Apple's
  // budget for priority 10 updates, and why Herald still defaults to it).
  liveactivity: { topicSuffix: '.push-type.liveactivity', defaultPriority: 10, priorities: ['5', '10'] },
  voip: { topicSuffix: '.voip' },
  complication: { topicSuffix: '.complication' },
  fileprovider: { topicSuffix: '.pushkit.fileprovider' },
  location: { topicSuffix: '.location-query' },
  pushtotalk: { topicSuffix: '.voip-ptt' },
};

/** The apns-topic of a push of this type for an app's bundle id. */
export function topicOf(bundleId: string, pushType: string | undefined): string {
  return bundleId + (PUSH_TYPES[pushType ?? 'alert']?.topicSuffix ?? '');
}
