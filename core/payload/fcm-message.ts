// The FCM HTTP v1 message of a send (issue 39 point 3), in one place, so that the 4,096-byte check
// at the API and the sender measure the same bytes (fcm-size.ts). Pure: no I/O, no clock. Keys are
// FCM's (projects.messages); what a stock Firebase app shows with no code of its own, plus what
// OneSignal's Android SDK reads, so an app moving over keeps working.
//
//   notification.title / .body      heading and message in the device's language (contract "Language rule")
//   notification.image              big_picture (SendRequest.imageUrl)
//   android.priority                HIGH for priority 10 or none, NORMAL for 5 and below
//   android.ttl                     "<seconds>s" from ttl (absent: 3 days, as for Apple)
//   android.collapse_key            collapse_id
//   android.notification            channel_id (android_channel_id / existing_android_channel_id),
//                                   icon (small_icon), color (#RRGGBB of android_accent_color's
//                                   AARRGGBB), sound (android_sound), tag (android_group)
//   data.<key>                      each key of the app's data as its own key (a stock app reads them)
//   data.custom                     JSON string {i: send id, u: url, a: the app's data}: OneSignal's SDK
//   data.o                          JSON string [{i: id, n: text}]: the button, as OneSignal's SDK reads it
// Every data value is a string, as FCM requires. A background send (content_available without
// contents) is data-only with priority HIGH.
import type { SendRequest } from '../send-model/request.js';
import { pickLanguage, textFor } from './language.js';
import { PLACEHOLDER_SEND_ID } from './apns-payload.js';
import { fcmMessageBytes } from './fcm-size.js';
import { DEFAULT_TTL_SECONDS } from './apns-headers.js';

export interface FcmMessageOptions {
  sendId?: number | bigint | string;
}

/** Keys FCM refuses in `data`, and the two Herald writes itself: an app's key by those names stays in custom.a only. */
const RESERVED_DATA_KEYS = new Set(['from', 'notification', 'message_type', 'custom', 'o']);
const reserved = (key: string) => RESERVED_DATA_KEYS.has(key) || key.startsWith('google.') || key.startsWith('gcm.');

/** OneSignal's AARRGGBB (or RRGGBB) as FCM's #RRGGBB; undefined when it is neither. */
export function fcmColor(accent: string | undefined): string | undefined {
  if (accent === undefined) return undefined;
  const hex = accent.trim().replace(/^#/, '');
  if (!/^[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$/.test(hex)) return undefined;
  return `#${(hex.length === 8 ? hex.slice(2) : hex).toUpperCase()}`;
}

/** A background push: content_available and no text to show. */
export function isBackground(req: SendRequest): boolean {
  return req.apns.contentAvailable === true && !Object.values(req.contents).some((t) => t !== '');
}

function androidOf(req: SendRequest, background: boolean): Record<string, unknown> {
  const { priority, ttlSeconds, collapseId } = req.apns;
  const android: Record<string, unknown> = { priority: background || priority === undefined || priority === 10 ? 'HIGH' : 'NORMAL' };
  // OneSignal's 3 days when `ttl` is absent, as Apple's apns-expiration (FCM's own default is 4 weeks).
  android.ttl = `${ttlSeconds ?? DEFAULT_TTL_SECONDS}s`;
  if (collapseId !== undefined) android.collapse_key = collapseId;
  if (background) return android;
  const a = req.android ?? {};
  const notification: Record<string, string> = {};
  if (a.channelId !== undefined) notification.channel_id = a.channelId;
  if (a.smallIcon !== undefined) notification.icon = a.smallIcon;
  const color = fcmColor(a.accentColor);
  if (color !== undefined) notification.color = color;
  if (a.sound !== undefined) notification.sound = a.sound;
  if (a.group !== undefined) notification.tag = a.group;
  if (Object.keys(notification).length > 0) android.notification = notification;
  return android;
}

function dataOf(req: SendRequest, sendId: string): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.data ?? {})) if (!reserved(k)) data[k] = String(v);
  const custom: Record<string, unknown> = { i: sendId };
  if (req.url !== undefined) custom.u = req.url;
  if (req.data !== undefined && Object.keys(req.data).length > 0) custom.a = req.data;
  data.custom = JSON.stringify(custom);
  if (req.button !== undefined) data.o = JSON.stringify([{ i: req.button.id, n: req.button.text }]);
  return data;
}

/** The message for one `contents` language (an unknown one falls back to the default), without its token. */
export function buildFcmMessage(req: SendRequest, language: string, opts: FcmMessageOptions = {}): Record<string, unknown> {
  const lang = Object.hasOwn(req.contents, language) ? language : req.defaultLanguage;
  const background = isBackground(req);
  const message: Record<string, unknown> = {};
  if (!background) {
    const notification: Record<string, string> = {};
    const title = textFor(req.headings, lang, req.defaultLanguage);
    if (title !== undefined) notification.title = title;
    notification.body = req.contents[lang] ?? '';
    if (req.imageUrl !== undefined) notification.image = req.imageUrl;
    message.notification = notification;
  }
  message.android = androidOf(req, background);
  message.data = dataOf(req, String(opts.sendId ?? PLACEHOLDER_SEND_ID));
  return message;
}

/** The message a device receives, its language picked first. */
export function buildFcmMessageForDevice(req: SendRequest, deviceLanguage: string | undefined, opts: FcmMessageOptions = {}): Record<string, unknown> {
  return buildFcmMessage(req, pickLanguage(req, deviceLanguage), opts);
}

/**
 * The messages:send body for `token`, from a message already serialised without it (one
 * JSON.stringify per language, not per device: the sender sends millions).
 */
export function fcmRequestBody(messageJson: string, token: string): string {
  const rest = messageJson === '{}' ? '}' : `,${messageJson.slice(1)}`;
  return `{"message":{"token":${JSON.stringify(token)}${rest}}`;
}

/**
 * FCM's bytes of the largest message over all languages, with the widest send id: what the send's
 * validation holds to FCM_MAX_MESSAGE_BYTES (a 422 naming Android over it). Messages of different
 * languages differ only in their title and body, so the longest is found first and built once.
 */
export function largestFcmMessageBytes(req: SendRequest): number {
  let longest = req.defaultLanguage;
  let longestBytes = -1;
  for (const language of Object.keys(req.contents)) {
    const title = textFor(req.headings, language, req.defaultLanguage);
    const bytes = Buffer.byteLength(JSON.stringify(req.contents[language] ?? '')) + (title === undefined ? 0 : Buffer.byteLength(JSON.stringify(title)) + 9);
    if (bytes > longestBytes) {
      longestBytes = bytes;
      longest = language;
    }
  }
  return fcmMessageBytes(buildFcmMessage(req, longest));
}
