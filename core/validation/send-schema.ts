// Stage (a) of send validation: shapes and types, by the shape view of the send body's one
// schema (send-body-schema.ts), checked by the one checker (checker.ts: its Ajv, compiled once,
// and its translator), one sentence per top-level field from the tables below.
// Unknown fields are allowed and ignored (DECISIONS "Bodies"). Lengths, formats and relations
// between fields are stage (b) (send-rules modules), where each gets its own sentence.
import type { TSchema } from 'typebox';
import { BODY_NOT_OBJECT, checkValue } from './checker.js';
import type { FieldIssue } from '../errors.js';
import { LIMITS } from './limits.js';
import { PUSH_TYPE_OVERRIDES, type SendBody } from './send-body-schema.js';
import { shapeSchema } from './schema-views.js';

const schema = shapeSchema();

export type { SendBody };

export { BODY_NOT_OBJECT };
export const APP_ID_REQUIRED = "app_id is required: the App ID of the key's app.";
export const CONTENTS_REQUIRED =
  'contents is required: the message text keyed by language code, such as {"en": "Hello"}.';

/** One sentence per field, whatever went wrong inside it. */
export const SHAPE_MESSAGES: Record<string, string> = {
  app_id: APP_ID_REQUIRED,
  contents: 'contents must be an object of language code to text.',
  headings: 'headings must be an object of language code to text.',
  template_id: 'template_id must be text: the id of a template of this app.',
  included_segments: 'included_segments must be an array of segment names.',
  tag: 'tag must be an object such as {"key": "level", "relation": ">", "value": "10"}.',
  filters: 'filters must be an array of conditions (and {"operator": "OR"} entries).',
  excluded_segments: 'excluded_segments must be an array of segment names.',
  include_subscription_ids: 'include_subscription_ids must be an array of Subscription IDs.',
  include_external_ids: 'include_external_ids must be an array of External IDs.',
  include_aliases: 'include_aliases must be {"<alias label>": [...]} with an array of ids, such as {"external_id": [...]}.',
  send_after: 'send_after must be a date and time as text, such as 2026-11-24T14:00:00-07:00.',
  delayed_option: 'delayed_option must be the text timezone or last-active.',
  delivery_time_of_day: 'delivery_time_of_day must be a clock time as text, such as 9:00AM or 21:45.',
  url: 'url must be text: an https address or an address handled by the app.',
  app_url: 'app_url must be text: an https address or an address handled by the app.',
  big_picture: 'big_picture must be text: an https image address.',
  ios_attachments: 'ios_attachments must be an object with one https image address, such as {"id": "https://…"}.',
  data: 'data must be an object of key to value.',
  buttons: 'buttons must be an array with one object that has id and text, both text.',
  bundle_id: "bundle_id must be text: the app's bundle id.",
  ttl: `ttl is a whole number of seconds from 0 to ${LIMITS.ttl_seconds}.`,
  priority: 'priority is a whole number from 1 to 10.',
  collapse_id: 'collapse_id must be text.',
  ios_badgeType: 'ios_badgeType is one of None, SetTo or Increase.',
  ios_badgeCount: 'ios_badgeCount is a whole number.',
  subtitle: 'subtitle must be an object of language code to text.',
  ios_sound: 'ios_sound must be text: the name of a sound file in the app, such as ping.aiff.',
  ios_category: 'ios_category must be text: a notification category the app registers.',
  thread_id: 'thread_id must be text.',
  summary_arg: 'summary_arg must be text.',
  summary_arg_count: 'summary_arg_count is a whole number from 0.',
  ios_interruption_level: 'ios_interruption_level is one of passive, active, time_sensitive or critical.',
  ios_relevance_score: 'ios_relevance_score is a number from 0 to 1.',
  target_content_identifier: 'target_content_identifier must be text.',
  mutable_content: 'mutable_content is true or false.',
  apns_alert: 'apns_alert must be an object of alert keys such as {"loc-key": "GAME_INVITE", "loc-args": ["Jenna"]}.',
  content_available: 'content_available is true or false.',
  apns_push_type_override: `apns_push_type_override is one of ${PUSH_TYPE_OVERRIDES.join(', ')}.`,
  android_channel_id: 'android_channel_id must be text: the notification channel id.',
  existing_android_channel_id: 'existing_android_channel_id must be text: a notification channel id the app created.',
  small_icon: 'small_icon must be text: the name of a drawable in the app, such as ic_stat_bell.',
  android_accent_color: 'android_accent_color must be text: 8 hex digits, AARRGGBB, such as FF0099CC.',
  android_sound: 'android_sound must be text: the name of a sound resource in the app, without its extension.',
  android_group: 'android_group must be text.',
  isIos: 'isIos is true or false.',
  isAndroid: 'isAndroid is true or false.',
  name: 'name must be text.',
  custom_data: 'custom_data must be an object.',
};

export interface ShapeResult {
  /** The fields of the body whose shape is right; null fields are dropped as absent. */
  body: SendBody;
  /** Names of the fields present in the body (not null), whatever their shape. */
  present: Set<string>;
  issues: FieldIssue[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The sentence of a required field missing from the body (else its table's, as a wrong shape). */
const MISSING: Readonly<Record<string, string>> = { contents: CONTENTS_REQUIRED, app_id: APP_ID_REQUIRED };

/** `contents.en`, `buttons[0].id` → the top-level field they are in. */
const topField = (path: string) => /^[^.[]*/.exec(path)?.[0] ?? path;

/**
 * A shape check of one body schema (its shape view), with one sentence per field: the send body's
 * (checkShape) and the Live Activity bodies' (live-activity-schema.ts).
 */
export function shapeCheck<B>(shape: Record<string, unknown>, sentences: Record<string, string>): (input: unknown) => ShapeResult & { body: B } {
  const schema = shape as TSchema;
  return (input) => checkWith(schema, sentences, input) as ShapeResult & { body: B };
}

/**
 * Checks shapes and types. A null field counts as absent: clients generated from OpenAPI
 * models (other languages than the Node client) send null for fields they do not set.
 */
export const checkShape = shapeCheck<SendBody>(schema, SHAPE_MESSAGES);

function checkWith(schema: TSchema, sentences: Record<string, string>, input: unknown): ShapeResult {
  if (!isObject(input)) return { body: {}, present: new Set(), issues: [{ field: '', message: BODY_NOT_OBJECT }] };
  const body: Record<string, unknown> = {};
  // null (another client's unset field) and undefined (a body built in code: a template filled in) are absent alike.
  for (const [key, value] of Object.entries(input)) if (value !== null && value !== undefined) body[key] = value;
  const present = new Set(Object.keys(body));
  // The checker's translator words each field by the table: a top-level field's sentence speaks
  // for anything wrong inside it; the first issue in a field is its one.
  const result = checkValue(schema, body, sentences);
  if (result.ok) return { body: body as SendBody, present, issues: [] };

  const named = new Set<string>();
  const issues: FieldIssue[] = [];
  for (const issue of result.issues) {
    const field = topField(issue.field);
    if (field === '' || named.has(field)) continue;
    named.add(field);
    issues.push({ field, message: (present.has(field) ? undefined : MISSING[field]) ?? issue.message });
  }
  // Every broken field leaves the body, named or past the answer's cap: the rules read the rest.
  for (const path of result.broken) delete body[topField(path)];
  return { body: body as SendBody, present, issues };
}
