// The APNs JSON payload of a send, in one place, so that the 4 KB check at the API and the
// sender measure the same bytes (DECISIONS "Bodies": 4 KB check). Pure: no I/O, no clock.
//
// Layout (what the app and its notification service extension read):
//   aps.alert.title / aps.alert.body   heading and message in the device's language
//   aps.sound                          "default"
//   aps.badge                          ios_badge_type SetTo
//   aps.mutable-content: 1             when the extension has work: image, button, badge increase
//   aps.category: "herald.button"      when there is a button; the extension registers the
//                                      category's single action from custom.b before display
//   custom.i   send id, as a decimal string (64-bit ids do not fit a JS/Swift double safely);
//              the app reports opens with it (POST /api/v1/notifications/{id}/opened)
//   custom.u   url opened on tap          custom.a   data dictionary (text values)
//   custom.m   https image to attach      custom.b   button {id, text}
//   custom.bi  ios_badge_type Increase: the amount the extension adds to its badge count
// `custom.i/u/a` are where OneSignal's SDK looks, which eases moving an app over.
import type { SendRequest } from '../send/request.js';
import { pickLanguage, textFor } from './language.js';

export const APNS_PAYLOAD_LIMIT_BYTES = 4096;
export const BUTTON_CATEGORY = 'herald.button';
/**
 * Stand-in send id for measuring before the send exists: 19 digits, as wide as the largest
 * 64-bit id, so the check is never more lenient than the real payload.
 */
export const PLACEHOLDER_SEND_ID = '9999999999999999999';

export interface ApnsPayloadOptions {
  sendId?: number | bigint | string;
}

/** The payload for one `contents` language (an unknown language falls back to the default). */
export function buildApnsPayload(
  req: SendRequest,
  language: string,
  opts: ApnsPayloadOptions = {},
): string {
  const lang = Object.hasOwn(req.contents, language) ? language : req.defaultLanguage;
  const alert: Record<string, string> = {};
  const title = textFor(req.headings, lang, req.defaultLanguage);
  if (title !== undefined) alert.title = title;
  alert.body = req.contents[lang] ?? '';

  const aps: Record<string, unknown> = { alert, sound: 'default' };
  const { badgeType, badgeCount } = req.apns;
  if (badgeType === 'SetTo' && badgeCount !== undefined) aps.badge = badgeCount;
  const badgeIncrease = badgeType === 'Increase' && badgeCount !== undefined;
  if (req.imageUrl !== undefined || req.button !== undefined || badgeIncrease) {
    aps['mutable-content'] = 1;
  }
  if (req.button !== undefined) aps.category = BUTTON_CATEGORY;

  const custom: Record<string, unknown> = { i: String(opts.sendId ?? PLACEHOLDER_SEND_ID) };
  if (req.url !== undefined) custom.u = req.url;
  if (req.data !== undefined && Object.keys(req.data).length > 0) custom.a = req.data;
  if (req.imageUrl !== undefined) custom.m = req.imageUrl;
  if (req.button !== undefined) custom.b = { id: req.button.id, text: req.button.text };
  if (badgeIncrease) custom.bi = badgeCount;

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
 * UTF-8 size of the largest payload over all languages, with the widest send id. Payloads of
 * different languages differ only in their title and body, so the language with the longest
 * encoded title and body is found first and one payload is built for it: a request with many
 * languages and a large `data` costs one build, not one per language (issue 12).
 */
export function largestPayloadBytes(req: SendRequest): number {
  let longest = req.defaultLanguage;
  let longestBytes = -1;
  for (const language of Object.keys(req.contents)) {
    const title = textFor(req.headings, language, req.defaultLanguage);
    const bytes =
      encodedBytes(req.contents[language] ?? '') + (title === undefined ? 0 : encodedBytes(title) + TITLE_KEY_BYTES);
    if (bytes > longestBytes) {
      longestBytes = bytes;
      longest = language;
    }
  }
  return Buffer.byteLength(buildApnsPayload(req, longest), 'utf8');
}

/** `"title":` and its comma: what a payload with a title has over one without. */
const TITLE_KEY_BYTES = Buffer.byteLength('"title":,', 'utf8');

function encodedBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text), 'utf8');
}
