// The APNs JSON payload of a send, in one place, so that the 4 KB check at the API and the
// sender measure the same bytes (DECISIONS "Bodies": 4 KB check). Pure: no I/O, no clock.
// Keys are Apple's ("Generating a remote notification", payload key reference); the iOS fields
// of the body map onto them as docs/api.md lists.
//
// Layout (what the app and its notification service extension read):
//   aps.alert.title / .subtitle / .body   heading, subtitle and message in the device's language
//   aps.alert.summary-arg(-count), loc-key, …  summary_arg(_count) and apns_alert's keys
//   aps.sound            ios_sound, default "default"; with interruption level critical
//                        Apple's dictionary {critical: 1, name, volume: 1}
//   aps.badge            ios_badgeType SetTo
//   aps.thread-id, aps.category, aps.interruption-level, aps.relevance-score, aps.target-content-id
//   aps.mutable-content: 1  mutable_content, or when the extension has work: image, button, badge increase
//   aps.category: "herald.button"  when there is a button; the extension registers the
//                        category's single action from custom.b before display
//   aps.content-available: 1  content_available; a background push has only this in aps
//   custom.i   send id, as a decimal string (64-bit ids do not fit a JS/Swift double safely);
//              the app reports opens with it (POST /api/v1/notifications/{id}/opened)
//   custom.u   url opened on tap          custom.a   data dictionary (text values)
//   custom.m   https image to attach      custom.b   button {id, text}
//   custom.bi  ios_badgeType Increase: the amount the extension adds to its badge count
// `custom.i/u/a` are where OneSignal's SDK looks, which eases moving an app over.
// A Live Activity push has its own `aps` and nothing else (live-activity-payload.ts). A push for
// the app's own handler (VoIP, location, complication, push-to-talk) has an empty `aps` and the
// same `custom`; a WidgetKit push (widgets, controls) only `aps.content-changed` (push-types.ts).
import type { SendRequest } from '../send-model/request.js';
import { requestPushType } from './apns-headers.js';
import { PUSH_TYPES } from './push-types.js';
import { pickLanguage, textFor } from './language.js';
import { liveActivityAps } from './live-activity-payload.js';

export const APNS_PAYLOAD_LIMIT_BYTES = 4096;
export const BUTTON_CATEGORY = 'herald.button';
/**
 * Stand-in send id for measuring before the send exists: 19 digits, as wide as the largest
 * 64-bit id, so the check is never more lenient than the real payload.
 */
export const PLACEHOLDER_SEND_ID = '9999999999999999999';
/** Apple's spelling of OneSignal's interruption levels. */
const INTERRUPTION_LEVEL = { passive: 'passive', active: 'active', time_sensitive: 'time-sensitive', critical: 'critical' } as const;

/** A WidgetKit push: the system reloads the widget or control and reads nothing else. */
const CONTENT_CHANGED = JSON.stringify({ aps: { 'content-changed': true } });

export interface ApnsPayloadOptions {
  sendId?: number | bigint | string;
}

function alertOf(req: SendRequest, lang: string): Record<string, unknown> {
  const alert: Record<string, unknown> = {};
  const title = textFor(req.headings, lang, req.defaultLanguage);
  if (title !== undefined) alert.title = title;
  const subtitle = textFor(req.subtitle, lang, req.defaultLanguage);
  if (subtitle !== undefined) alert.subtitle = subtitle;
  alert.body = req.contents[lang] ?? '';
  const { summaryArg, summaryArgCount, alertExtras } = req.apns;
  if (summaryArg !== undefined) alert['summary-arg'] = summaryArg;
  if (summaryArgCount !== undefined) alert['summary-arg-count'] = summaryArgCount;
  if (alertExtras) Object.assign(alert, alertExtras);
  return alert;
}

function apsOf(req: SendRequest, lang: string): Record<string, unknown> {
  const a = req.apns;
  const kind = PUSH_TYPES[requestPushType(req)].payload;
  if (kind === 'background') return { 'content-available': 1 };
  if (kind === 'data') return {};
  const aps: Record<string, unknown> = { alert: alertOf(req, lang) };
  const soundName = a.sound ?? 'default';
  aps.sound = a.interruptionLevel === 'critical' ? { critical: 1, name: soundName, volume: 1 } : soundName;
  if (a.badgeType === 'SetTo' && a.badgeCount !== undefined) aps.badge = a.badgeCount;
  if (a.threadId !== undefined) aps['thread-id'] = a.threadId;
  const badgeIncrease = a.badgeType === 'Increase' && a.badgeCount !== undefined;
  if (a.mutableContent || req.imageUrl !== undefined || req.button !== undefined || badgeIncrease) {
    aps['mutable-content'] = 1;
  }
  if (req.button !== undefined) aps.category = BUTTON_CATEGORY;
  else if (a.category !== undefined) aps.category = a.category;
  if (a.contentAvailable) aps['content-available'] = 1;
  if (a.interruptionLevel !== undefined) aps['interruption-level'] = INTERRUPTION_LEVEL[a.interruptionLevel];
  if (a.relevanceScore !== undefined) aps['relevance-score'] = a.relevanceScore;
  if (a.targetContentId !== undefined) aps['target-content-id'] = a.targetContentId;
  return aps;
}

/** The payload for one `contents` language (an unknown language falls back to the default). */
export function buildApnsPayload(
  req: SendRequest,
  language: string,
  opts: ApnsPayloadOptions = {},
): string {
  const lang = Object.hasOwn(req.contents, language) ? language : req.defaultLanguage;
  if (req.liveActivity) return JSON.stringify({ aps: liveActivityAps(req, lang) });
  if (PUSH_TYPES[requestPushType(req)].payload === 'content-changed') return CONTENT_CHANGED;
  const aps = apsOf(req, lang);
  const custom: Record<string, unknown> = { i: String(opts.sendId ?? PLACEHOLDER_SEND_ID) };
  if (req.url !== undefined) custom.u = req.url;
  if (req.data !== undefined && Object.keys(req.data).length > 0) custom.a = req.data;
  if (req.imageUrl !== undefined) custom.m = req.imageUrl;
  if (req.button !== undefined) custom.b = { id: req.button.id, text: req.button.text };
  if (req.apns.badgeType === 'Increase' && req.apns.badgeCount !== undefined) custom.bi = req.apns.badgeCount;

  return JSON.stringify({ aps, custom });
}

/** The payload a device receives, picking its language first. */
export function buildApnsPayloadForDevice(
  req: SendRequest,
  deviceLanguage: string | undefined,
  opts: ApnsPayloadOptions = {},
): string {
  return buildApnsPayload(req, pickLanguage(req, deviceLanguage), opts);
}

/**
 * UTF-8 size of the largest payload over all languages, with the widest send id: the whole
 * payload as Apple receives it. Payloads of different languages differ only in their title,
 * subtitle and body, so the language with the longest encoded texts is found first and one
 * payload is built for it: a request with many languages and a large `data` costs one build,
 * not one per language.
 */
export function largestPayloadBytes(req: SendRequest): number {
  let longest = req.defaultLanguage;
  let longestBytes = -1;
  for (const language of Object.keys(req.contents)) {
    const bytes =
      encodedBytes(req.contents[language] ?? '') +
      optionalBytes(textFor(req.headings, language, req.defaultLanguage), TITLE_KEY_BYTES) +
      optionalBytes(textFor(req.subtitle, language, req.defaultLanguage), SUBTITLE_KEY_BYTES);
    if (bytes > longestBytes) {
      longestBytes = bytes;
      longest = language;
    }
  }
  return Buffer.byteLength(buildApnsPayload(req, longest), 'utf8');
}

/** `"title":` and its comma: what a payload with a title has over one without. */
const TITLE_KEY_BYTES = Buffer.byteLength('"title":,', 'utf8');
const SUBTITLE_KEY_BYTES = Buffer.byteLength('"subtitle":,', 'utf8');

function optionalBytes(text: string | undefined, keyBytes: number): number {
  return text === undefined ? 0 : encodedBytes(text) + keyBytes;
}

function encodedBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text), 'utf8');
}
