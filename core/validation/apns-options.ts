// The iOS fields of the official client, by their wire names (DECISIONS "Compatibility": extra
// fields), checked and mapped onto ApnsOptions. Types, enums and numeric ranges are the shape
// check's (send-body-schema.ts); lengths, relations between fields and Apple's own rules are here,
// each with a sentence naming the field and what is allowed.
import type { FieldIssue } from '../errors.js';
import type { ApnsOptions } from '../send-model/request.js';
import { LIMITS } from './limits.js';
import { APNS_ALERT_KEYS } from './send-body-schema.js';
import type { SendBody } from './send-schema.js';
import { codePointLength, quoted } from './text.js';
import { isHeaderValue } from '../formats/header-value.js';
import { checkPushType } from './push-type-rules.js';

/** Printable ASCII: what an HTTP/2 header value carries as is (and what Herald's transport frames). */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const TEXT_FIELDS = ['ios_sound', 'ios_category', 'thread_id', 'summary_arg', 'target_content_identifier'] as const;
const MAX_ALERT_TEXT = LIMITS.alert_text;
const MAX_ALERT_ARGS = LIMITS.alert_args;

/** OneSignal's 1–10 onto Apple's three values: 10 immediately, 5 power-considerate, 1 power first. */
export function applePriority(priority: number): 1 | 5 | 10 {
  return priority >= 7 ? 10 : priority >= 4 ? 5 : 1;
}

/** A space at either end of apns-collapse-id: HTTP/2 cannot carry it (core/formats/header-value.ts). */
export const COLLAPSE_ID_EDGE_SPACE = 'collapse_id may not start or end with a space: an HTTP/2 header value cannot.';

function readCollapseId(value: string, issues: FieldIssue[]): string | undefined {
  if (!PRINTABLE_ASCII.test(value) || Buffer.byteLength(value, 'utf8') > LIMITS.collapse_id_bytes) {
    issues.push({ field: 'collapse_id', message: `collapse_id must be printable ASCII (letters, digits, space and punctuation), at most ${LIMITS.collapse_id_bytes} bytes.` });
    return undefined;
  }
  // The transport frames only what the header rule allows; anything else would fail every device.
  if (!isHeaderValue(value)) {
    issues.push({ field: 'collapse_id', message: COLLAPSE_ID_EDGE_SPACE });
    return undefined;
  }
  return value === '' ? undefined : value;
}

function readAlertExtras(extras: Record<string, unknown>, issues: FieldIssue[]): Record<string, string | string[]> | undefined {
  const before = issues.length;
  const kept: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(extras)) {
    if (!(APNS_ALERT_KEYS as readonly string[]).includes(key)) {
      issues.push({ field: 'apns_alert', message: `apns_alert has "${quoted(key)}"; its keys are ${APNS_ALERT_KEYS.join(', ')}.` });
    } else if (key.endsWith('-args')) {
      const ok = Array.isArray(value) && value.length <= MAX_ALERT_ARGS &&
        value.every((v) => typeof v === 'string' && codePointLength(v) <= MAX_ALERT_TEXT);
      if (ok) kept[key] = value as string[];
      else issues.push({ field: `apns_alert.${key}`, message: `apns_alert.${key} must be an array of at most ${MAX_ALERT_ARGS} texts of at most ${MAX_ALERT_TEXT} characters.` });
    } else if (typeof value === 'string' && codePointLength(value) <= MAX_ALERT_TEXT) {
      kept[key] = value;
    } else {
      issues.push({ field: `apns_alert.${key}`, message: `apns_alert.${key} must be text of at most ${MAX_ALERT_TEXT} characters.` });
    }
  }
  return issues.length > before || Object.keys(kept).length === 0 ? undefined : kept;
}

function readBadge(body: SendBody, present: Set<string>, apns: ApnsOptions, issues: FieldIssue[]): void {
  const type = body.ios_badgeType;
  if (type === undefined) return; // a count without a type means nothing to OneSignal either
  apns.badgeType = type;
  const count = body.ios_badgeCount;
  if (type !== 'None' && count === undefined) {
    if (!present.has('ios_badgeCount')) issues.push({ field: 'ios_badgeCount', message: `ios_badgeCount is required with ios_badgeType ${type}.` });
  } else if (type === 'SetTo' && count! < 0) {
    issues.push({ field: 'ios_badgeCount', message: 'ios_badgeCount must be 0 or more with ios_badgeType SetTo.' });
  } else if (type !== 'None') {
    apns.badgeCount = count;
  }
}

/** `present`: fields the body named (so a field with a wrong type, already reported, is not reported again). */
export function readApnsOptions(body: SendBody, present: Set<string>, issues: FieldIssue[]): ApnsOptions {
  const apns: ApnsOptions = {};
  if (body.ttl !== undefined) apns.ttlSeconds = body.ttl;
  if (body.priority !== undefined) apns.priority = applePriority(body.priority);
  if (body.collapse_id !== undefined) {
    const id = readCollapseId(body.collapse_id, issues);
    if (id !== undefined) apns.collapseId = id;
  }
  readBadge(body, present, apns, issues);
  for (const field of TEXT_FIELDS) {
    const value = body[field];
    if (value !== undefined && codePointLength(value) > LIMITS[field]) issues.push({ field, message: `${field} is longer than ${LIMITS[field]} characters.` });
  }
  if (body.ios_sound !== undefined && body.ios_sound !== '') apns.sound = body.ios_sound;
  if (body.ios_category !== undefined && body.ios_category !== '') apns.category = body.ios_category;
  if (body.thread_id !== undefined && body.thread_id !== '') apns.threadId = body.thread_id;
  if (body.summary_arg !== undefined && body.summary_arg !== '') apns.summaryArg = body.summary_arg;
  if (body.summary_arg_count !== undefined) apns.summaryArgCount = body.summary_arg_count;
  if (body.ios_interruption_level !== undefined) apns.interruptionLevel = body.ios_interruption_level;
  if (body.ios_relevance_score !== undefined) apns.relevanceScore = body.ios_relevance_score;
  if (body.target_content_identifier !== undefined && body.target_content_identifier !== '') {
    apns.targetContentId = body.target_content_identifier;
  }
  if (body.mutable_content === true) apns.mutableContent = true;
  if (body.apns_alert !== undefined) {
    const extras = readAlertExtras(body.apns_alert, issues);
    if (extras) apns.alertExtras = extras;
  }
  if (body.content_available === true) apns.contentAvailable = true;
  if (body.apns_push_type_override !== undefined) apns.pushTypeOverride = body.apns_push_type_override;
  if (body.ios_category !== undefined && body.buttons !== undefined && body.buttons.length > 0) {
    issues.push({ field: 'ios_category', message: 'ios_category and buttons both set the notification category. Send one of them.' });
  }
  checkPushType(body, present, apns, issues);
  return apns;
}
