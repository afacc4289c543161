// The send body, defined once (TypeBox: JSON Schema and its static type from one definition).
// Everything else is derived from it (schema-views.ts): the api's shape check (ajv), the OpenAPI
// request schema, the Send CRD's `spec` (tools/crd/sends-crd.ts writes the YAML; a test fails when
// the committed files differ) and the `SendBody` type. Limits written here are the documented
// ones; the api checks lengths and formats in its rule stage (send-content.ts, …) so each broken
// rule gets its own sentence, which is why the shape view drops them.
//
// `x-herald-shape` marks a field the shape check takes loosely: `any` = not checked there at all
// (the rule stage has the contract's sentence for every wrong value, type included), `object` /
// `array` = only that JSON type (the members are checked by the rule stage). Views strip it.
import Type, { type Static, type TSchema } from 'typebox';
import { FilterEntry } from '../audience/filter-schema.js';
import { LIMITS } from './limits.js';
import { UUID_LENGTH, UUID_PATTERN } from '../formats/uuid.js';
import { ALIAS_LABEL_RULE } from '../formats/alias-label.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_PATTERN } from '../formats/idempotency-key.js';
import { OWN_TOKEN_PUSH_TYPES } from '../payload/push-types.js';

/** language code → text (additionalProperties, not patternProperties: CRDs allow only that). */
const textMap = (maxLength: number, description: string) =>
  Type.Unsafe<Record<string, string>>({ type: 'object', description, additionalProperties: { type: 'string', maxLength } });

function stringEnum<const V extends string>(values: readonly V[], description: string) {
  return Type.Unsafe<V>({ type: 'string', enum: [...values], description });
}

/** Any JSON object, kept as it is (the CRD keeps its unknown members). */
const freeObject = (description: string) =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', description, 'x-herald-free': true });

const loose = <T extends TSchema>(schema: T, how: 'any' | 'object' | 'array') =>
  Type.Unsafe<Static<T>>({ ...schema, 'x-herald-shape': how });

const text = (maxLength: number, description: string) => Type.String({ maxLength, description });
const androidText = (description: string) => Type.String({ minLength: 1, maxLength: LIMITS.android_text, description });

export const INTERRUPTION_LEVELS = ['passive', 'active', 'time_sensitive', 'critical'] as const;
export const BADGE_TYPES = ['None', 'SetTo', 'Increase'] as const;
/** apns-push-type a send may choose (issue 29: the types with a token of their own, core/payload/push-types.ts). */
export const PUSH_TYPE_OVERRIDES = ['alert', 'background', ...OWN_TOKEN_PUSH_TYPES] as const;
/** Apple's alert dictionary keys a caller may add through apns_alert (Herald writes the others). */
export const APNS_ALERT_KEYS = [
  'launch-image',
  'title-loc-key',
  'title-loc-args',
  'subtitle-loc-key',
  'subtitle-loc-args',
  'loc-key',
  'loc-args',
] as const;
const TAG_CONDITION = FilterEntry;
/** OneSignal's android_accent_color: 8 hex digits, alpha first (FCM takes #RRGGBB; core/payload drops the alpha). */
export const ACCENT_COLOR_PATTERN = '^[0-9A-Fa-f]{8}$';

export const SendBodySchema = Type.Object({
  // Presence and type only: whether it is the key's app is the route's check (403).
  app_id: Type.String({ description: "The App ID of the key's app." }),
  contents: Type.Optional(textMap(LIMITS.contents, 'The message text by language code → aps.alert.body. Required unless the push shows nothing (content_available, or apns_push_type_override other than alert).')),
  headings: Type.Optional(textMap(LIMITS.headings, 'The title by language code → aps.alert.title.')),
  subtitle: Type.Optional(textMap(LIMITS.subtitle, 'The subtitle by language code → aps.alert.subtitle.')),
  template_id: Type.Optional(
    Type.String({ maxLength: UUID_LENGTH, pattern: UUID_PATTERN, description: "A template of the app: its fields fill the body's, the body's own taking precedence (docs/api.md \"Templates\")." }),
  ),
  included_segments: Type.Optional(loose(Type.Array(text(LIMITS.tag, 'A segment name.'), { maxItems: LIMITS.included_segments }), 'array')),
  tag: Type.Optional(loose(TAG_CONDITION, 'object')),
  filters: Type.Optional(loose(Type.Array(FilterEntry, { maxItems: LIMITS.filter_entries }), 'array')),
  excluded_segments: Type.Optional(loose(Type.Array(text(LIMITS.tag, 'A segment name.'), { maxItems: LIMITS.excluded_segments }), 'array')),
  include_subscription_ids: Type.Optional(
    Type.Array(Type.String({ maxLength: UUID_LENGTH, pattern: UUID_PATTERN }), { maxItems: LIMITS.ids_per_list }),
  ),
  include_external_ids: Type.Optional(Type.Array(Type.String({ maxLength: LIMITS.external_id }), { maxItems: LIMITS.ids_per_list })),
  // One alias label per send and its ids: any label is a key here, so the OpenAPI document and the
  // Send CRD take what the rules take; the shape check asks only for an object, and the rule stage
  // (send-target.ts readAliases) says what is wrong with a label or an id, naming it.
  include_aliases: Type.Optional(
    loose(
      Type.Unsafe<Record<string, string[]>>({
        type: 'object',
        additionalProperties: { type: 'array', items: { type: 'string', maxLength: LIMITS.external_id }, maxItems: LIMITS.ids_per_list },
        description: `One alias label and its ids: external_id, onesignal_id, or a custom label (${ALIAS_LABEL_RULE}), such as {"external_id": ["u1"]}.`,
      }),
      'object',
    ),
  ),
  send_after: Type.Optional(text(LIMITS.send_after, 'RFC 3339 or a date string OneSignal documents; at most 30 days ahead.')),
  delayed_option: Type.Optional(Type.String({ maxLength: LIMITS.delayed_option, description: 'timezone or last-active' })),
  delivery_time_of_day: Type.Optional(text(LIMITS.delivery_time_of_day, 'A clock time such as 9:00AM or 21:45.')),
  throttle_rate_per_minute: Type.Optional(loose(Type.Integer({ minimum: LIMITS.throttle_min, maximum: LIMITS.throttle_max }), 'any')),
  url: Type.Optional(text(LIMITS.url, 'Opened on tap → custom.u.')),
  app_url: Type.Optional(text(LIMITS.url, 'Another name of url.')),
  big_picture: Type.Optional(text(LIMITS.image_url, 'An https image → custom.m (the extension attaches it).')),
  ios_attachments: Type.Optional(
    Type.Unsafe<Record<string, string>>({ type: 'object', maxProperties: 1, additionalProperties: { type: 'string', maxLength: LIMITS.image_url } }),
  ),
  data: Type.Optional(freeObject('Key → value for the app → custom.a (values as text).')),
  buttons: Type.Optional(
    Type.Array(Type.Object({ id: Type.String({ maxLength: LIMITS.button }), text: Type.String({ maxLength: LIMITS.button }) }), { maxItems: 1 }),
  ),
  bundle_id: Type.Optional(text(LIMITS.bundle_id, "The app's bundle id.")),
  idempotency_key: Type.Optional(loose(Type.String({ maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: IDEMPOTENCY_KEY_PATTERN }), 'any')),
  external_id: Type.Optional(loose(Type.String({ maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: IDEMPOTENCY_KEY_PATTERN }), 'any')),
  // iOS fields, by the official client's wire names (its model's baseName).
  ttl: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.ttl_seconds, description: 'Seconds → apns-expiration; default 259200 (3 days); 0 = now or never.' })),
  priority: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, description: '1–3 → apns-priority 1, 4–6 → 5, 7–10 → 10.' })),
  collapse_id: Type.Optional(text(LIMITS.collapse_id_bytes, 'apns-collapse-id: printable ASCII, at most 64 bytes.')),
  ios_badgeType: Type.Optional(stringEnum(BADGE_TYPES, 'SetTo → aps.badge; Increase → added by the extension.')),
  ios_badgeCount: Type.Optional(Type.Integer({ minimum: LIMITS.badge_min, maximum: LIMITS.badge_max, format: 'int32' })),
  ios_sound: Type.Optional(text(LIMITS.ios_sound, 'A sound file of the app bundle → aps.sound (default "default").')),
  ios_category: Type.Optional(text(LIMITS.ios_category, 'aps.category.')),
  thread_id: Type.Optional(text(LIMITS.thread_id, 'aps.thread-id.')),
  summary_arg: Type.Optional(text(LIMITS.summary_arg, 'aps.alert.summary-arg.')),
  summary_arg_count: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'aps.alert.summary-arg-count.' })),
  ios_interruption_level: Type.Optional(stringEnum(INTERRUPTION_LEVELS, 'aps.interruption-level (time_sensitive → time-sensitive).')),
  ios_relevance_score: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'aps.relevance-score.' })),
  target_content_identifier: Type.Optional(text(LIMITS.target_content_identifier, 'aps.target-content-id.')),
  mutable_content: Type.Optional(Type.Boolean({ description: 'aps.mutable-content: 1.' })),
  apns_alert: Type.Optional(freeObject(`Extra aps.alert keys: ${APNS_ALERT_KEYS.join(', ')}.`)),
  content_available: Type.Optional(Type.Boolean({ description: 'A background push: aps.content-available 1, apns-push-type background, apns-priority 5.' })),
  apns_push_type_override: Type.Optional(
    stringEnum(PUSH_TYPE_OVERRIDES, 'apns-push-type. voip, location, complication, pushtotalk, widgets and controls go to the token of that type each install registered (docs/api.md "Push types"); installs without one are left out.'),
  ),
  // Android fields, by the official client's wire names (issue 39): FCM's message.android.notification.
  android_channel_id: Type.Optional(androidText('The notification channel → channel_id (one of android_channel_id and existing_android_channel_id).')),
  existing_android_channel_id: Type.Optional(androidText('A channel the app created → channel_id (one of android_channel_id and existing_android_channel_id).')),
  small_icon: Type.Optional(androidText('A drawable of the app → icon.')),
  android_accent_color: Type.Optional(
    Type.String({ minLength: 8, maxLength: 8, pattern: ACCENT_COLOR_PATTERN, description: 'AARRGGBB hex → color #RRGGBB.' }),
  ),
  android_sound: Type.Optional(androidText('A sound resource of the app → sound.')),
  android_group: Type.Optional(androidText('Notifications of one group stack → tag.')),
  isIos: Type.Optional(Type.Boolean({ description: 'false: no iOS device (both isIos and isAndroid true when absent; both false is a 422).' })),
  isAndroid: Type.Optional(Type.Boolean({ description: 'false: no Android device (both isIos and isAndroid true when absent; both false is a 422).' })),
  name: Type.Optional(text(LIMITS.name, "The send's internal name (never sent to devices).")),
  custom_data: Type.Optional(freeObject('Kept with the send and returned by its stats; never sent to devices.')),
});

/** The body as the shape check leaves it (fields with a wrong shape removed). */
export type SendBody = Partial<Omit<Static<typeof SendBodySchema>, LooseFields>> & { [F in LooseFields]?: unknown };
/** Fields the shape check does not type (`x-herald-shape: any`): the rule stage reads them. */
type LooseFields = 'throttle_rate_per_minute' | 'idempotency_key' | 'external_id';
/** The fields of the body, in the schema's order. */
export const SEND_BODY_FIELDS = Object.keys(SendBodySchema.properties) as (keyof SendBody)[];
