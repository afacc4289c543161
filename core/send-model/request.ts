// The send request after validation: the one shape that the API, the Send reconciler and the
// sender share. Built only by `core/validation/validate-send.ts` (validateSendRequest); everything downstream
// trusts it. Field meanings: docs/api.md "Send request body".
import type { OwnTokenPushType } from '../formats/push-type.js';
import type { TagRelation } from '../formats/tags.js';

/**
 * Exactly one audience target (contract: "Target rule"), narrowed by `excluding`: segments whose
 * installs are left out (`excluded_segments`, which is not a target), and by `pushToStart`: only
 * installs holding a push-to-start token of that activity type (a Live Activity start), and by
 * `pushToken`: only installs holding a token of that push type (a VoIP, location, … push; issue 29).
 * `activity` is the installs holding an update token of one Live Activity (its update or end).
 * `platform`: only installs of that platform (OneSignal's isIos / isAndroid naming one; the same
 * as SendRequest.platforms), so the count, the estimate and the plan read one condition.
 */
export type SendTarget = (
  // included_segments: `segment` the first name, `orSegments` the others (issue 38: their union,
  // each install once); absent for one name, so records written before read the same.
  | { kind: 'segment'; segment: string; orSegments?: string[] }
  | { kind: 'tag'; tag: TagCondition }
  | { kind: 'filters'; groups: AudienceCondition[][] } // OR of groups, AND within a group
  | { kind: 'subscription_ids'; ids: string[] } // distinct, in first-seen order
  | { kind: 'external_ids'; ids: string[] } // distinct, in first-seen order
  | { kind: 'aliases'; label: string; ids: string[] } // include_aliases of a label other than external_id (issue 27)
  | { kind: 'activity'; activityId: string }
) & { excluding?: string[]; pushToStart?: string; pushToken?: OwnTokenPushType; platform?: Platform };

/** One condition of a `filters` target, on a field an install records. */
export type AudienceCondition =
  | ({ field: 'tag' } & TagCondition)
  | { field: 'language'; relation: '=' | '!='; value: string }
  | { field: 'last_session' | 'first_session'; relation: '>' | '<'; hoursAgo: number }
  // What OneSignal's v1 calls report of an install (issue 38, migration 080).
  | { field: 'session_count' | 'session_time' | 'amount_spent'; relation: '>' | '<' | '=' | '!='; value: number };

/** The relations of a tag condition: core/formats/tags.ts owns the list. */
export type { TagRelation } from '../formats/tags.js';

export interface TagCondition {
  key: string;
  relation: TagRelation;
  value?: string; // absent for exists / not_exists
}

export interface SendButton {
  id: string;
  text: string;
}

/**
 * The iOS fields of the body (OneSignal's wire names in the comments), already checked. Values
 * keep the body's meaning so a Send spec can be written back from them (controller/sends/spec.ts);
 * core/payload turns them into Apple's `aps` keys and `apns-*` headers.
 */
export interface ApnsOptions {
  ttlSeconds?: number; // `ttl`; absent: 3 days. apns-expiration = start of the device's push + ttl
  priority?: 1 | 5 | 10; // `priority` 1–10 onto Apple's 1, 5, 10
  collapseId?: string; // `collapse_id`
  badgeType?: 'None' | 'SetTo' | 'Increase'; // `ios_badgeType`
  badgeCount?: number; // `ios_badgeCount`
  sound?: string; // `ios_sound`
  category?: string; // `ios_category`
  threadId?: string; // `thread_id`
  summaryArg?: string; // `summary_arg`
  summaryArgCount?: number; // `summary_arg_count`
  interruptionLevel?: 'passive' | 'active' | 'time_sensitive' | 'critical'; // `ios_interruption_level`
  relevanceScore?: number; // `ios_relevance_score`
  targetContentId?: string; // `target_content_identifier`
  mutableContent?: boolean; // `mutable_content`
  alertExtras?: Record<string, string | string[]>; // `apns_alert`
  contentAvailable?: boolean; // `content_available`
  pushTypeOverride?: 'alert' | 'background' | OwnTokenPushType; // `apns_push_type_override`
}

/**
 * The Android fields of the body (OneSignal's wire names in the comments), already checked;
 * core/payload's FCM builder turns them into `message.android` (issue 39 point 3). `ttl`,
 * `priority` and `collapse_id` are shared with iOS and read from ApnsOptions.
 */
export interface AndroidOptions {
  channelId?: string; // `android_channel_id` or `existing_android_channel_id`
  smallIcon?: string; // `small_icon`
  accentColor?: string; // `android_accent_color`, AARRGGBB as OneSignal takes it
  sound?: string; // `android_sound`
  group?: string; // `android_group`
}

/** The platforms a send reaches: OneSignal's `isIos` / `isAndroid`, both true when absent. */
export type Platform = 'ios' | 'android';

/**
 * A Live Activity push (docs/live-activities.md): ActivityKit's `aps` keys, already checked.
 * `timestamp` is the acceptance second, so an update retried or delayed never overwrites a newer
 * one on the device (ActivityKit keeps the latest timestamp).
 */
export interface LiveActivityRequest {
  event: 'start' | 'update' | 'end';
  /** update/end: the activity the tokens were registered for; start: the body's activity_id. */
  activityId: string;
  /** start: the ActivityAttributes type (the path's activity_type) → aps.attributes-type. */
  activityType?: string;
  /** `event_updates` → aps.content-state. */
  contentState: Record<string, unknown>;
  /** start: `event_attributes` → aps.attributes. */
  attributes?: Record<string, unknown>;
  timestamp: number;
  staleDate?: number; // Unix seconds → aps.stale-date
  dismissalDate?: number; // end only → aps.dismissal-date
  /** start: the broadcast channel the new activity subscribes to (iOS 18) → aps.input-push-channel. */
  channelId?: string;
}

export interface SendRequest {
  appId: string;
  target: SendTarget;
  /** language code → text; at least one non-empty entry, except for a background push ({}). */
  contents: Record<string, string>;
  headings?: Record<string, string>;
  subtitle?: Record<string, string>;
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
  /**
   * `delayed_option: last-active` (issue 38, OneSignal's intelligent delivery): each install at the
   * hour of the day (UTC) it was last active, within 24 h of the start; never active: at the start.
   */
  lastActiveDelivery?: true;
  throttleRatePerMinute?: number;
  idempotencyKey?: string;
  apns: ApnsOptions;
  /** Absent: no Android field was given. */
  android?: AndroidOptions;
  /** `isIos: false` or `isAndroid: false` narrow the send to the other platform; absent: both. */
  platforms?: Platform[];
  /** `name`: the send's internal name (never sent to devices). */
  name?: string;
  /** `custom_data`: kept with the send, returned by its stats. */
  customData?: Record<string, unknown>;
  /** `template_id`: the template whose fields filled the body (lower case), kept so a report can name it. */
  templateId?: string;
  /** A Live Activity push instead of a notification (sends of kind `live_activity`). */
  liveActivity?: LiveActivityRequest;
}

/**
 * The stored request read in SQL. A send keeps its SendRequest as JSON (`sends.request`, jsonb);
 * every JSON path into it is built here, from this type's own keys, so a renamed field fails the
 * type check instead of quietly reading NULL. `column` is the request column as the query names
 * it (`request`, `s.request`). (The search column's function, migration 015, reads it too.)
 */
type KeyOf<T> = T extends unknown ? Extract<keyof T, string> : never;
export type RequestField = Extract<keyof SendRequest, string>;
export type RequestPart<F extends RequestField> = KeyOf<NonNullable<SendRequest[F]>>;

/** `column->'field'` or `column->'field'->'part'`: the JSON value (jsonb, NULL when absent). */
export function requestJsonSql<F extends RequestField>(column: string, field: F, part?: RequestPart<F>): string {
  return part === undefined ? `${column}->'${field}'` : `${column}->'${field}'->'${part}'`;
}

/** `column->>'field'` or `column->'field'->>'part'`: the value as text (NULL when absent). */
export function requestTextSql<F extends RequestField>(column: string, field: F, part?: RequestPart<F>): string {
  return part === undefined ? `${column}->>'${field}'` : `${column}->'${field}'->>'${part}'`;
}

/** `(column ? 'field')`: whether the request has the field. */
export function requestHasSql(column: string, field: RequestField): string {
  return `(${column} ? '${field}')`;
}
