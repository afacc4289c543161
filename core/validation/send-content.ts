// What the push says and carries: contents, headings, link, image, data, button, bundle id
// (contract "Send request body"; DECISIONS "Bodies").
import type { SendButton } from '../send/request.js';
import type { SendBody } from './send-schema.js';
import { codePointLength, cutToCodePoints, quoted } from './text.js';

const LANGUAGE = /^[a-z]{2}(-[A-Za-z]{2,4})?$/;
export const MAX_CONTENTS_CHARS = 2000;
export const MAX_HEADINGS_CHARS = 120;
export const MAX_SUBTITLE_CHARS = 120;
export const MAX_URL_CHARS = 500;
export const MAX_BUTTON_CHARS = 40;
export const MAX_DATA_KEY_CHARS = 40;
export const MAX_DATA_VALUE_CHARS = 2000;
/**
 * Languages per map. OneSignal's list has about 45 languages; 100 leaves room for regional
 * variants (pt-BR, zh-Hans, …) while bounding the work of one request (decisions).
 */
export const MAX_LANGUAGES = 100;
/** More `data` entries than this cannot fit in 4 KB (each costs at least 7 bytes: `"k":"",`). */
export const MAX_DATA_ENTRIES = 1000;
export const ONE_BUTTON = 'Send one button.';
/** Schemes that are refused for a tap link: plain http and those that run or embed content. */
const REFUSED_SCHEMES = new Set(['http', 'javascript', 'data', 'file', 'vbscript', 'blob']);

/**
 * A language map (`contents` or `headings`). Entries that are empty or only white space are
 * dropped, so they can neither become the default language nor be sent as a blank push.
 */
function readLanguageMap(
  map: Record<string, string>,
  field: 'contents' | 'headings' | 'subtitle',
  maxChars: number,
  messages: string[],
): Record<string, string> {
  const kept: Record<string, string> = {};
  const count = Object.keys(map).length;
  if (count > MAX_LANGUAGES) {
    messages.push(`${field} has ${count} languages; at most ${MAX_LANGUAGES} are accepted.`);
    return kept;
  }
  for (const [language, text] of Object.entries(map)) {
    if (!LANGUAGE.test(language)) {
      messages.push(
        `${field} has "${quoted(language)}", which is not a language code such as en, pt-BR or zh-Hans.`,
      );
      continue;
    }
    const length = codePointLength(text);
    if (length > maxChars) {
      messages.push(
        `${field}.${language} is longer than ${maxChars.toLocaleString('en-US')} characters (${length}).`,
      );
      continue;
    }
    if (text.trim() !== '') kept[language] = text;
  }
  return kept;
}

export interface Texts {
  contents: Record<string, string>;
  headings?: Record<string, string>;
  subtitle?: Record<string, string>;
  defaultLanguage: string;
}

/** The language of a push without text (a background push): the contract's default. */
const NO_TEXT_LANGUAGE = 'en';

/** `textless`: a background push, which has no text (its alert fields are refused elsewhere). */
export function readTexts(body: SendBody, messages: string[], textless = false): Texts | undefined {
  if (textless) return body.contents === undefined ? { contents: {}, defaultLanguage: NO_TEXT_LANGUAGE } : undefined;
  const before = messages.length;
  const contents = body.contents && readLanguageMap(body.contents, 'contents', MAX_CONTENTS_CHARS, messages);
  const headings = body.headings && readLanguageMap(body.headings, 'headings', MAX_HEADINGS_CHARS, messages);
  const subtitle = body.subtitle && readLanguageMap(body.subtitle, 'subtitle', MAX_SUBTITLE_CHARS, messages);
  if (!contents) return undefined; // missing or wrong shape: already reported
  const languages = Object.keys(contents);
  if (languages.length === 0 && messages.length === before) {
    messages.push('contents needs the message text in at least one language.');
  }
  if (messages.length > before) return undefined;
  // Contract "Language rule": en when contents has it, else the first language of contents.
  const defaultLanguage = Object.hasOwn(contents, 'en') ? 'en' : languages[0];
  const texts: Texts = { contents, defaultLanguage };
  if (headings && Object.keys(headings).length > 0) texts.headings = headings;
  if (subtitle && Object.keys(subtitle).length > 0) texts.subtitle = subtitle;
  return texts;
}

/** A tap link: https, or an address handled by the app (`myapp://…`). */
function linkProblem(field: string, link: string): string | undefined {
  if (codePointLength(link) > MAX_URL_CHARS) return `${field} is longer than 500 characters.`;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(link)?.[1]?.toLowerCase();
  if (scheme === undefined || /[\s\u0000-\u001f\u007f]/.test(link)) {
    return `${field} must be an https address or an address handled by the app, such as myapp://inbox.`;
  }
  if (REFUSED_SCHEMES.has(scheme)) {
    return `${field} may not use the ${scheme}: scheme; use https or an address handled by the app.`;
  }
  if (scheme === 'https' && !isHttps(link)) return `${field} is not a valid https address.`;
  return undefined;
}

function isHttps(address: string): boolean {
  try {
    const parsed = new URL(address);
    return parsed.protocol === 'https:' && parsed.hostname !== '';
  } catch {
    return false;
  }
}

/** `url`, or its alias `app_url`; both given must be equal. */
export function readUrl(body: SendBody, messages: string[]): string | undefined {
  const problems = (['url', 'app_url'] as const)
    .filter((field) => body[field] !== undefined)
    .map((field) => linkProblem(field, body[field]!))
    .filter((p): p is string => p !== undefined);
  messages.push(...problems);
  if (problems.length > 0) return undefined;
  if (body.url !== undefined && body.app_url !== undefined && body.url !== body.app_url) {
    messages.push('url and app_url differ. Send one link.');
    return undefined;
  }
  return body.url ?? body.app_url;
}

/** `big_picture`, or `ios_attachments` with exactly one https entry; both given must be equal. */
export function readImage(body: SendBody, messages: string[]): string | undefined {
  const before = messages.length;
  if (body.big_picture !== undefined && !isHttps(body.big_picture)) {
    messages.push('big_picture must be an https image address.');
  }
  let attachment: string | undefined;
  if (body.ios_attachments !== undefined) {
    const values = Object.values(body.ios_attachments);
    if (values.length !== 1) {
      messages.push('ios_attachments must hold exactly one image, such as {"id": "https://…"}.');
    } else if (!isHttps(values[0])) {
      messages.push('ios_attachments must hold an https image address.');
    } else {
      attachment = values[0];
    }
  }
  if (messages.length > before) return undefined;
  if (body.big_picture !== undefined && attachment !== undefined && body.big_picture !== attachment) {
    messages.push('big_picture and ios_attachments differ. Send one image.');
    return undefined;
  }
  return body.big_picture ?? attachment;
}

/**
 * `data`, as the app receives it: values as text (numbers and booleans stringified, objects and
 * arrays JSON-encoded; null values dropped like absent fields), keys cut to 40 characters and
 * values to 2,000. Never refused (contract "Send request body"). When two keys are equal once
 * cut, the first one keeps its value. More entries than fit in 4 KB are refused at once.
 */
export function readData(body: SendBody, messages: string[]): Record<string, string> | undefined {
  if (body.data === undefined) return undefined;
  const count = Object.keys(body.data).length;
  if (count > MAX_DATA_ENTRIES) {
    messages.push(`data holds at most ${MAX_DATA_ENTRIES} entries; this request has ${count}.`);
    return undefined;
  }
  const entries = new Map<string, string>();
  for (const [rawKey, raw] of Object.entries(body.data)) {
    if (raw === null || raw === undefined) continue;
    const key = cutToCodePoints(rawKey, MAX_DATA_KEY_CHARS);
    if (entries.has(key)) continue;
    const value = typeof raw === 'string' ? raw : typeof raw === 'object' ? JSON.stringify(raw) : String(raw);
    entries.set(key, cutToCodePoints(value, MAX_DATA_VALUE_CHARS));
  }
  // fromEntries defines own properties, so a "__proto__" key stays a plain key.
  return entries.size > 0 ? Object.fromEntries(entries) : undefined;
}

export function readButton(body: SendBody, messages: string[]): SendButton | undefined {
  const buttons = body.buttons;
  if (buttons === undefined || buttons.length === 0) return undefined;
  if (buttons.length > 1) {
    messages.push(ONE_BUTTON);
    return undefined;
  }
  const { id, text } = buttons[0];
  const before = messages.length;
  for (const [name, value] of [['id', id], ['text', text]] as const) {
    const length = codePointLength(value);
    if (length > MAX_BUTTON_CHARS) messages.push(`buttons[0].${name} is longer than 40 characters.`);
    else if (value.trim() === '') messages.push(`buttons[0].${name} must not be empty.`);
  }
  return messages.length > before ? undefined : { id, text };
}

export function checkBundleId(body: SendBody, bundleId: string, messages: string[]): void {
  if (body.bundle_id !== undefined && body.bundle_id !== bundleId) {
    messages.push(`bundle_id is not this app's bundle id (${bundleId}).`);
  }
}
