// Apple's push types, each with the topic it needs, the priorities Apple takes for it, the one
// Herald gives it when the request names none, and what its payload carries, in one table that
// the validator, the payload builders, the transports and the simulator read (Apple, "Sending
// notification requests to APNs": apns-push-type, apns-topic, apns-priority, apns-expiration;
// docs/apns.md "Push types" cites the page of each row). Herald sends every type but fileprovider
// and mdm (no app-facing token for them); those are here so the simulator knows their topics.

import type { OwnTokenPushType } from '../formats/push-type.js';

export { isOwnTokenPushType, OWN_TOKEN_PUSH_TYPES, type OwnTokenPushType } from '../formats/push-type.js';

export type HeraldPushType = 'alert' | 'background' | 'liveactivity' | OwnTokenPushType;

/**
 * What the payload of a type carries: an alert; `content-available` only; ActivityKit's keys;
 * `data` for the app's own handler (PushKit, the location or push-to-talk extension: `aps` empty,
 * the send's data in `custom.a`); or only `aps.content-changed` (WidgetKit reloads, nothing else is read).
 */
export type PayloadKind = 'alert' | 'background' | 'liveactivity' | 'data' | 'content-changed';

interface PushTypeRule {
  /** apns-topic is the bundle id followed by this. */
  topicSuffix: string;
  /** apns-priority when the request names none (absent: Apple's default, 10, header left out). */
  defaultPriority?: 5 | 10;
  /** The only priorities Apple takes for this type (absent: 1, 5 and 10). */
  priorities?: readonly ('1' | '5' | '10')[];
  /** Apple wants apns-expiration 0: delivered now or never, never stored. */
  expiresAtOnce?: true;
  /** Apple takes this type over token-based connections only (a push key, not a certificate). */
  tokenAuthOnly?: true;
  payload?: PayloadKind;
}

export const PUSH_TYPES: Record<string, PushTypeRule> = {
  alert: { topicSuffix: '', payload: 'alert' },
  // Apple: a background push must go at priority 5.
  background: { topicSuffix: '', defaultPriority: 5, priorities: ['5'], payload: 'background' },
  // ActivityKit pushes go at 5 or 10; 10 by default (docs/decisions.md "Live Activities": Apple's
  // budget for priority 10 updates, and why Herald still defaults to it).
  liveactivity: { topicSuffix: '.push-type.liveactivity', defaultPriority: 10, priorities: ['5', '10'], payload: 'liveactivity' },
  // PushKit VoIP: a call rings now (CallKit must be told at once), so 10 unless the request says.
  voip: { topicSuffix: '.voip', defaultPriority: 10, payload: 'data' },
  // Apple: 10 when the location query needs an answer now, else 5; "supports only token-based
  // authentication" (apns-push-type location).
  location: { topicSuffix: '.location-query', defaultPriority: 10, priorities: ['5', '10'], tokenAuthOnly: true, payload: 'data' },
  complication: { topicSuffix: '.complication', payload: 'data' },
  // PushToTalk framework: apns-priority 10 and apns-expiration 0.
  pushtotalk: { topicSuffix: '.voip-ptt', defaultPriority: 10, priorities: ['10'], expiresAtOnce: true, payload: 'data' },
  // WidgetKit: {"aps": {"content-changed": true}} reloads the widget's timeline / the control.
  widgets: { topicSuffix: '.push-type.widgets', payload: 'content-changed' },
  controls: { topicSuffix: '.push-type.controls', payload: 'content-changed' },
  fileprovider: { topicSuffix: '.pushkit.fileprovider' },
};

/** The apns-topic of a push of this type for an app's bundle id. */
export function topicOf(bundleId: string, pushType: string | undefined): string {
  return bundleId + (PUSH_TYPES[pushType ?? 'alert']?.topicSuffix ?? '');
}
