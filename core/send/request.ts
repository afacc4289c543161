// The send request after validation: the one shape that the API, the Send reconciler and the
// sender share. Built only by `api/validation` (validateSendRequest); everything downstream
// trusts it. Field meanings: ../../../shared/spec/push-service.md "Send request body".

/** Exactly one audience target (contract: "Target rule"). */
export type SendTarget =
  | { kind: 'segment'; segment: string }
  | { kind: 'tag'; tag: TagCondition }
  | { kind: 'subscription_ids'; ids: string[] } // distinct, in first-seen order
  | { kind: 'external_ids'; ids: string[] }; // distinct, in first-seen order

export type TagRelation = '=' | '!=' | '>' | '<' | 'exists' | 'not_exists';

export interface TagCondition {
  key: string;
  relation: TagRelation;
  value?: string; // absent for exists / not_exists
}

export interface SendButton {
  id: string;
  text: string;
}

/** Optional APNs header values taken from OneSignal-client fields (DECISIONS: extra fields). */
export interface ApnsOptions {
  ttlSeconds?: number; // `ttl` → apns-expiration = now + ttl
  priority?: 5 | 10; // `priority` (OneSignal 1-10 mapped: >= 7 → 10, else 5)
  collapseId?: string; // `collapse_id`
  badgeType?: 'None' | 'SetTo' | 'Increase'; // `ios_badge_type`
  badgeCount?: number; // `ios_badge_count`
}

export interface SendRequest {
  appId: string;
  target: SendTarget;
  /** language code → text; at least one non-empty entry. */
  contents: Record<string, string>;
  headings?: Record<string, string>;
  /** `en` when contents has it, else the first language of contents (contract: "Language rule"). */
  defaultLanguage: string;
  url?: string; // url or app_url (equal when both given)
  imageUrl?: string; // big_picture or ios_attachments' single value (equal when both given)
  /** Already cut to 40-char keys and 2,000-char values; values are text. */
  data?: Record<string, string>;
  button?: SendButton;
  /** When the send is scheduled (absent: now). Already checked to be within the window. */
  sendAfter?: Date;
  /** `delayed_option: timezone`: clock time of day "HH:MM" (24 h) each device receives it at. */
  timezoneDelivery?: { timeOfDay: string; fallbackOffsetMinutes: number };
  throttleRatePerMinute?: number;
  idempotencyKey?: string;
  apns: ApnsOptions;
}
