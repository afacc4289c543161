// The limits of a send body, stated once (issue 26). The body's schema (send-body-schema.ts, and
// through it the OpenAPI document and the Send CRD), the rule stage's checks and sentences
// (send-content.ts, send-target.ts, …) and the dashboard's form (`maxlength`) all read them here,
// so the link field can no longer allow 2,048 characters where the rule allows 500.
// Text lengths are counted in Unicode code points (text.ts); the names ending in BYTES count UTF-8
// bytes. Where a limit comes from elsewhere (the contract, Apple, the CRD), the comment says so.
import { MAX_FILTER_ENTRIES } from '../audience/filter-schema.js';
import { IDS_PER_LIST, SEGMENTS_PER_SEND } from '../audience/target-kinds.js';
import { MAX_SEND_AFTER_CHARS } from '../time/send-after.js';
import { TAG_MAX_CHARS } from '../formats/tags.js';

export const LIMITS = {
  /** Each language's text (contract "Send request body": "Up to 2,000 characters"). */
  contents: 2000,
  headings: 120,
  subtitle: 120,
  /**
   * Languages per map. OneSignal's list has about 45 languages; 100 leaves room for regional
   * variants (pt-BR, zh-Hans, …) while bounding the work of one request (decisions).
   */
  languages: 100,
  /** `url` and `app_url`. */
  url: 500,
  /** `big_picture` and the `ios_attachments` entry. */
  image_url: 2048,
  /** `buttons[0].id` and `buttons[0].text`. */
  button: 40,
  /** `data` keys and values are cut to these, never refused (contract "Send request body"). */
  data_key: 40,
  data_value: 2000,
  /** More `data` entries than this cannot fit in 4 KB (each costs at least 7 bytes: `"k":"",`). */
  data_entries: 1000,
  /** Tag keys and values, and segment names: as long as a device's tag key (decisions). */
  tag: TAG_MAX_CHARS,
  external_id: 128,
  /** Ids in one include_subscription_ids / include_external_ids list: the list rows' (core/audience/target-kinds.ts). */
  ids_per_list: IDS_PER_LIST,
  /** Segments whose union one send reaches (included_segments): the segment row's. */
  included_segments: SEGMENTS_PER_SEND,
  /** Segments one send may leave out (excluded_segments). */
  excluded_segments: 10,
  filter_entries: MAX_FILTER_ENTRIES,
  /** The CRD's maxLength: a longer send_after is refused before it is parsed (core/time). */
  send_after: MAX_SEND_AFTER_CHARS,
  delayed_option: 16,
  delivery_time_of_day: 16,
  bundle_id: 255,
  /** The send's internal name. */
  name: 128,
  /** custom_data as JSON text: bounded like a payload, since every stats read returns it. */
  custom_data_bytes: 2048,
  /** apns-collapse-id (Apple, "Sending notification requests to APNs"). */
  collapse_id_bytes: 64,
  ios_sound: 255,
  ios_category: 128,
  thread_id: 128,
  summary_arg: 128,
  target_content_identifier: 256,
  /**
   * android_channel_id, existing_android_channel_id, small_icon, android_sound, android_group:
   * each 1 to this many characters. Android's channel ids, resource names and group keys have no
   * documented limit; 256 holds a UUID or any resource name and bounds what every device's message
   * carries (decisions, issue 39).
   */
  android_text: 256,
  /** Each text of apns_alert, and the number of its -args. */
  alert_text: 256,
  alert_args: 20,
  /** Seconds: Apple keeps a push at most 28 days. */
  ttl_seconds: 2_419_200,
  throttle_min: 1,
  throttle_max: 100_000,
  /** A badge count is a 32-bit signed integer (the client's int32). */
  badge_min: -2_147_483_648,
  badge_max: 2_147_483_647,
} as const;
