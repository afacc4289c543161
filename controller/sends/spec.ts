// Between a Send's spec and the REST body. A kubectl-applied Send becomes the body the REST call
// would carry (same validation, same messages); a REST send mirrored as a Send gets its spec back
// from the stored, validated SendRequest. Both shapes come from the send body's one schema
// (core/validation/send-body-schema.ts); spec.test.ts checks that every accepted body comes back
// unchanged and that no field of the schema is left unmapped.
import type { ApnsOptions, SendRequest } from '../../core/send-model/request.js';
import { targetBody } from '../../core/audience/target-kinds.js';
import type { SendSpec } from './types.js';
import { ANDROID_SPEC_FIELDS, platformFlags } from '../../core/validation/android-options.js';

/**
 * The REST body of a Send: the spec's fields as they are, app_id from the App in place of appRef.
 * `cancel` is not part of what is sent (it may be set later), so it never changes the idempotency
 * fingerprint of a resubmission.
 */
export function restBody(spec: SendSpec, appId: string): Record<string, unknown> {
  const { appRef: _appRef, cancel: _cancel, ...fields } = spec;
  return { app_id: appId, ...fields };
}

/** Body fields kept as they are in ApnsOptions, by wire name. */
export const APNS_SPEC_FIELDS = {
  ttl: 'ttlSeconds',
  priority: 'priority',
  collapse_id: 'collapseId',
  ios_badgeType: 'badgeType',
  ios_badgeCount: 'badgeCount',
  ios_sound: 'sound',
  ios_category: 'category',
  thread_id: 'threadId',
  summary_arg: 'summaryArg',
  summary_arg_count: 'summaryArgCount',
  ios_interruption_level: 'interruptionLevel',
  ios_relevance_score: 'relevanceScore',
  target_content_identifier: 'targetContentId',
  mutable_content: 'mutableContent',
  apns_alert: 'alertExtras',
  content_available: 'contentAvailable',
  apns_push_type_override: 'pushTypeOverride',
} as const satisfies Partial<Record<keyof SendSpec, keyof ApnsOptions>>;

/**
 * Body fields a spec never carries because the request keeps them under another name (the
 * spec uses that one) or not at all: app_id (appRef), app_url (url), ios_attachments
 * (big_picture), external_id
 * (idempotency_key), bundle_id (checked against the App, not kept), template_id (its fields are
 * filled into the request when accepted: the mirror shows the content sent).
 */
export const FIELDS_KEPT_UNDER_ANOTHER_NAME = ['app_id', 'app_url', 'ios_attachments', 'external_id', 'bundle_id', 'template_id', 'existing_android_channel_id'] as const;

/** isIos / isAndroid: written back from SendRequest.platforms (core/validation/android-options.ts). */
export const PLATFORM_SPEC_FIELDS = ['isIos', 'isAndroid'] as const;

/** `date` as RFC 3339 in the offset it was written with, so its clock time stays the same. */
function withOffset(date: Date, offsetMinutes: number): string {
  const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 19);
  if (offsetMinutes === 0) return `${local}Z`;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** The spec of a mirror from the stored request (a read-only picture of what was sent). */
export function specFromRequest(appName: string, req: SendRequest): SendSpec {
  const spec: SendSpec = { appRef: { name: appName } };
  if (Object.keys(req.contents).length) spec.contents = req.contents;
  if (req.headings && Object.keys(req.headings).length) spec.headings = req.headings;
  if (req.subtitle && Object.keys(req.subtitle).length) spec.subtitle = req.subtitle;
  // The target's fields as its row of the table writes them (a Live Activity's tokens: such sends are never mirrored).
  Object.assign(spec, targetBody(req.target));
  const zone = req.timezoneDelivery;
  if (req.sendAfter) spec.send_after = withOffset(new Date(req.sendAfter), zone?.fallbackOffsetMinutes ?? 0);
  if (zone) {
    spec.delayed_option = 'timezone';
    spec.delivery_time_of_day = zone.timeOfDay;
  }
  if (req.lastActiveDelivery) spec.delayed_option = 'last-active';
  if (req.url) spec.url = req.url;
  if (req.imageUrl) spec.big_picture = req.imageUrl;
  if (req.data && Object.keys(req.data).length) spec.data = req.data;
  if (req.button) spec.buttons = [req.button];
  if (req.throttleRatePerMinute !== undefined) spec.throttle_rate_per_minute = req.throttleRatePerMinute;
  if (req.idempotencyKey) spec.idempotency_key = req.idempotencyKey;
  if (req.name !== undefined) spec.name = req.name;
  if (req.customData !== undefined) spec.custom_data = req.customData;
  const apns = (req.apns ?? {}) as Record<string, unknown>;
  for (const [field, key] of Object.entries(APNS_SPEC_FIELDS)) {
    if (apns[key] !== undefined) (spec as Record<string, unknown>)[field] = apns[key];
  }
  // The Android fields (issue 39): existing_android_channel_id comes back as android_channel_id.
  const android = (req.android ?? {}) as Record<string, unknown>;
  for (const [field, key] of Object.entries(ANDROID_SPEC_FIELDS)) {
    if (android[key] !== undefined) (spec as Record<string, unknown>)[field] = android[key];
  }
  Object.assign(spec, platformFlags(req.platforms));
  return spec;
}
