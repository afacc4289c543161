// The Android fields of the official client, by their wire names (issue 39 point 3), checked and
// mapped onto AndroidOptions, and OneSignal's isIos / isAndroid onto the send's platforms. Types
// are the shape check's (send-body-schema.ts); lengths, the colour's format and the relations
// between fields are here, each with a sentence naming the field. Before, these fields were
// dropped without a word; `ttl`, `priority`, `collapse_id` and `big_picture` are shared with iOS
// and read where they were.
import type { FieldIssue } from '../errors.js';
import type { AndroidOptions, Platform } from '../send-model/request.js';
import { LIMITS } from './limits.js';
import { ACCENT_COLOR_PATTERN } from './send-body-schema.js';
import type { SendBody } from './send-schema.js';
import { codePointLength } from './text.js';

/** Body field → AndroidOptions key, for the fields kept as given (the Send spec writes them back). */
export const ANDROID_SPEC_FIELDS = {
  android_channel_id: 'channelId',
  small_icon: 'smallIcon',
  android_accent_color: 'accentColor',
  android_sound: 'sound',
  android_group: 'group',
} as const satisfies Partial<Record<keyof SendBody, keyof AndroidOptions>>;

const ACCENT_COLOR = new RegExp(ACCENT_COLOR_PATTERN);

const TEXT_FIELDS = ['android_channel_id', 'existing_android_channel_id', 'small_icon', 'android_sound', 'android_group'] as const;

/** Why a text field is refused: empty or longer than its limit (code points, as every send text). */
function textProblem(field: (typeof TEXT_FIELDS)[number], value: string): FieldIssue | undefined {
  const max = LIMITS.android_text;
  if (value.length === 0 || codePointLength(value) > max) return { field, message: `${field} must be 1 to ${max} characters.` };
  return undefined;
}

/** The Android options of a body, or undefined when it names none (absent keeps stored requests as before). */
export function readAndroidOptions(body: SendBody, issues: FieldIssue[]): AndroidOptions | undefined {
  const before = issues.length;
  for (const field of TEXT_FIELDS) {
    const value = body[field];
    const problem = value === undefined ? undefined : textProblem(field, value);
    if (problem) issues.push(problem);
  }
  if (body.android_channel_id !== undefined && body.existing_android_channel_id !== undefined) {
    issues.push({ field: 'existing_android_channel_id', message: 'android_channel_id and existing_android_channel_id both name the notification channel. Send one of them.' });
  }
  const color = body.android_accent_color;
  if (color !== undefined && !ACCENT_COLOR.test(color)) {
    issues.push({ field: 'android_accent_color', message: 'android_accent_color must be 8 hex digits, alpha then red, green and blue (AARRGGBB), such as FF0099CC.' });
  }
  if (issues.length > before) return undefined;
  const android: AndroidOptions = {};
  const channel = body.android_channel_id ?? body.existing_android_channel_id;
  if (channel !== undefined) android.channelId = channel;
  if (body.small_icon !== undefined) android.smallIcon = body.small_icon;
  if (color !== undefined) android.accentColor = color;
  if (body.android_sound !== undefined) android.sound = body.android_sound;
  if (body.android_group !== undefined) android.group = body.android_group;
  return Object.keys(android).length ? android : undefined;
}

export const NO_PLATFORM = 'isIos and isAndroid are both false: the send would reach no device. Leave one of them true (or out).';

/**
 * OneSignal's isIos / isAndroid (both true when absent): the one platform a send is narrowed to,
 * or undefined for both. Both false is refused: it names no device.
 */
export function readPlatform(body: SendBody, issues: FieldIssue[]): Platform | undefined {
  const ios = body.isIos !== false;
  const android = body.isAndroid !== false;
  if (!ios && !android) {
    issues.push({ field: 'isAndroid', message: NO_PLATFORM });
    return undefined;
  }
  return ios && android ? undefined : ios ? 'ios' : 'android';
}

/** The body's flags for a send narrowed to one platform (a Send spec written back from the request). */
export function platformFlags(platforms: readonly Platform[] | undefined): { isIos?: false; isAndroid?: false } {
  if (platforms === undefined || platforms.length !== 1) return {};
  return platforms[0] === 'ios' ? { isAndroid: false } : { isIos: false };
}
