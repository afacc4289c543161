// validateSendRequest: the request body of POST /api/v1/notifications → SendRequest, or a
// ValidationError (422) listing every problem found. Two stages: shapes and types by JSON schema
// (send-schema.ts), then the contract's rules, one module per group. `app_id` is not checked
// here beyond being present: the route has already matched it against the key (403,
// DECISIONS "Limits").
import { otherChannelIssues } from './other-channels.js';
import { ValidationError } from '../errors.js';
import { APNS_PAYLOAD_LIMIT_BYTES, largestPayloadBytes } from '../payload/apns-payload.js';
import { largestFcmMessageBytes } from '../payload/fcm-message.js';
import { FCM_MAX_MESSAGE_BYTES } from '../payload/fcm-size.js';
import type { Platform, SendRequest, SendTarget } from '../send-model/request.js';
import type { FieldIssue } from '../errors.js';
import { readApnsOptions } from './apns-options.js';
import { readAndroidOptions, readPlatform } from './android-options.js';
import { checkCredentialsFor, isTextless } from './push-type-rules.js';
import { isOwnTokenPushType } from '../payload/push-types.js';
import { readIdempotencyKey } from './idempotency-key.js';
import {
  checkBundleId,
  readButton,
  readData,
  readImage,
  readTexts,
  readUrl,
} from './send-content.js';
import { readSchedule, readThrottle } from './send-schedule.js';
import { APP_ID_REQUIRED, BODY_NOT_OBJECT, CONTENTS_REQUIRED, checkShape, type ShapeResult } from './send-schema.js';
import { readBookkeeping } from './send-bookkeeping.js';
import { readExcludedSegments, readTarget } from './send-target.js';

// The contract's sentence ("Limits": Apple payload over 4KB) is kept word for word for Apple's
// payload; FCM's message (issue 39 point 3) has the same rule and the same sentence naming Android,
// and one sentence names both when both are over (docs/decisions.md, issue 39 4 KB).
export const PAYLOAD_TOO_LARGE = 'This notification is larger than 4KB. It is not cut short.';
export const ANDROID_PAYLOAD_TOO_LARGE = 'This notification is larger than 4KB for Android (FCM counts the message without its token). It is not cut short.';
export const BOTH_PAYLOADS_TOO_LARGE = 'This notification is larger than 4KB for both iOS and Android. It is not cut short.';

export interface SendValidationInput {
  /** The parsed JSON body. */
  body: unknown;
  /** The Idempotency-Key header, if any. */
  idempotencyHeader?: string;
  app: {
    id: string;
    bundleId: string;
    /** Names of the app's own segments, App resource and API (core/audience/segments.ts customSegmentNames). */
    segmentNames: string[];
    /** The app's stored credentials (absent: unknown): a type Apple takes over token auth only is refused for a certificate. */
    credentialsKind?: 'token' | 'certificate';
    /**
     * The platforms the App holds credentials for now (absent: both, as for an App with none yet:
     * a draft is delivered with the credentials of later). The 4 KB rule is held for these only,
     * so an iOS-only App's message is not refused for FCM's size.
     */
    reaches?: Platform[];
  };
  /** Injected clock, for send_after's window. */
  now: Date;
}

/** The audience a body names, as the send reads it: its target narrowed by excluded_segments. */
function readAudience(shape: ShapeResult, segmentNames: string[], issues: FieldIssue[]): SendTarget | undefined {
  issues.push(...otherChannelIssues(shape.body as Record<string, unknown>));
  const target = readTarget(shape.body, shape.present, segmentNames, issues);
  const excluding = readExcludedSegments(shape.body.excluded_segments, segmentNames, issues);
  if (target && excluding) target.excluding = excluding;
  // A VoIP, location, … push goes to the installs holding a token of that type, to that token.
  const pushType = shape.body.apns_push_type_override;
  if (target && isOwnTokenPushType(pushType)) target.pushToken = pushType;
  // isIos / isAndroid: the installs of one platform, counted and planned by the same condition.
  const platform = readPlatform(shape.body, issues);
  if (target && platform !== undefined) target.platform = platform;
  // Only iOS installs hold a VoIP, location, … token (the token calls refuse Android installs).
  if (platform === 'android' && isOwnTokenPushType(pushType)) {
    issues.push({ field: 'isIos', message: `apns_push_type_override ${pushType} reaches iOS installs only; with isIos false the send would reach none.` });
  }
  return target;
}

/**
 * The audience of a send body without its message (estimateNotificationRecipients): the same
 * shape check and audience rules as validateSendRequest, so an estimate refuses what the send
 * would refuse, with the same 422 sentences. The body's other fields are checked for shape only:
 * the client's estimate body carries none of them.
 */
export function validateSendAudience(input: Pick<SendValidationInput, 'body' | 'app'>): SendTarget {
  const raw = input.body;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ValidationError(BODY_NOT_OBJECT);
  const shape = checkShape(raw);
  const issues = [...shape.issues];
  const target = readAudience(shape, input.app.segmentNames, issues);
  if (issues.length > 0 || !target) throw new ValidationError(issues);
  return target;
}

export function validateSendRequest(input: SendValidationInput): SendRequest {
  const raw = input.body;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ValidationError(BODY_NOT_OBJECT); // no field rules apply to a non-object
  }
  const shape = checkShape(raw);
  const body = shape.body;
  const issues = [...shape.issues];
  const textless = isTextless(body);
  // contents may be left out of a push that shows nothing only (its wrong shape is already reported).
  if (!textless && !shape.present.has('contents')) {
    issues.splice(issues[0]?.message === APP_ID_REQUIRED ? 1 : 0, 0, { field: 'contents', message: CONTENTS_REQUIRED });
  }

  const idempotencyKey = readIdempotencyKey(body.idempotency_key, input.idempotencyHeader, issues, body.external_id);
  const target = readAudience(shape, input.app.segmentNames, issues);
  checkCredentialsFor(body, input.app.credentialsKind, issues);
  const texts = readTexts(body, issues, textless);
  const url = readUrl(body, issues);
  const imageUrl = readImage(body, issues);
  const data = readData(body, issues);
  const button = readButton(body, issues);
  checkBundleId(body, input.app.bundleId, issues);
  const throttleRatePerMinute = readThrottle(body.throttle_rate_per_minute, issues);
  const schedule = readSchedule(body, input.now, issues);
  const apns = readApnsOptions(body, shape.present, issues);
  const android = readAndroidOptions(body, issues);
  const bookkeeping = readBookkeeping(body, issues);

  if (issues.length > 0 || !target || !texts) throw new ValidationError(issues);

  const request: SendRequest = {
    appId: input.app.id,
    target,
    contents: texts.contents,
    defaultLanguage: texts.defaultLanguage,
    apns,
  };
  if (texts.headings) request.headings = texts.headings;
  if (texts.subtitle) request.subtitle = texts.subtitle;
  if (bookkeeping.name !== undefined) request.name = bookkeeping.name;
  if (bookkeeping.customData !== undefined) request.customData = bookkeeping.customData;
  if (bookkeeping.templateId !== undefined) request.templateId = bookkeeping.templateId;
  if (url !== undefined) request.url = url;
  if (imageUrl !== undefined) request.imageUrl = imageUrl;
  if (data !== undefined) request.data = data;
  if (button !== undefined) request.button = button;
  if (schedule.sendAfter !== undefined) request.sendAfter = schedule.sendAfter;
  if (schedule.timezoneDelivery !== undefined) request.timezoneDelivery = schedule.timezoneDelivery;
  if (schedule.lastActiveDelivery) request.lastActiveDelivery = true;
  if (throttleRatePerMinute !== undefined) request.throttleRatePerMinute = throttleRatePerMinute;
  if (idempotencyKey !== undefined) request.idempotencyKey = idempotencyKey;
  if (android !== undefined) request.android = android;
  if (target.platform !== undefined) request.platforms = [target.platform];

  const tooLarge = payloadTooLarge(request, input.app.reaches);
  if (tooLarge) throw new ValidationError(tooLarge);
  return request;
}

/**
 * Last, on a complete request: the exact payload of every language, with the widest send id,
 * against each gateway's 4 KB for each platform the send can reach: its isIos / isAndroid, within
 * the platforms the App holds credentials for (`reaches`; absent: both). Too large is refused,
 * never cut (contract "Limits").
 */
export function payloadTooLarge(request: SendRequest, reaches: readonly Platform[] = ['ios', 'android']): string | undefined {
  const platforms = (request.platforms ?? ['ios', 'android']).filter((p) => reaches.includes(p));
  const ios = platforms.includes('ios') && largestPayloadBytes(request) > APNS_PAYLOAD_LIMIT_BYTES;
  const android = platforms.includes('android') && largestFcmMessageBytes(request) > FCM_MAX_MESSAGE_BYTES;
  if (ios && android) return BOTH_PAYLOADS_TOO_LARGE;
  if (ios) return PAYLOAD_TOO_LARGE;
  return android ? ANDROID_PAYLOAD_TOO_LARGE : undefined;
}
