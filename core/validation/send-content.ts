// What the push says and carries: contents, headings, link, image, data, button, bundle id
// (contract "Send request body"; DECISIONS "Bodies").
import type { FieldIssue } from '../errors.js';
import type { SendButton } from '../send-model/request.js';
import { LIMITS } from './limits.js';
import type { SendBody } from './send-schema.js';
import { codePointLength, cutToCodePoints, quoted } from './text.js';
import { isLanguageCode } from '../formats/language-code.js';

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
  issues: FieldIssue[],
): Record<string, string> {
  const maxChars = LIMITS[field];
  const kept: Record<string, string> = {};
  const count = Object.keys(map).length;
  if (count > LIMITS.languages) {
    issues.push({ field, message: `${field} has ${count} languages; at most ${LIMITS.languages} are accepted.` });
    return kept;
  }
  for (const [language, text] of Object.entries(map)) {
    if (!isLanguageCode(language)) {
      issues.push({
        field,
        message: `${field} has "${quoted(language)}", which is not a language code such as en, pt-BR or zh-Hans.`,
      });
      continue;
    }
    const length = codePointLength(text);
    if (length > maxChars) {
      issues.push({
        field: `${field}.${language}`,
        message: `${field}.${language} is longer than ${maxChars.toLocaleString('en-US')} characters (${length}).`,
      });
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
export function readTexts(body: SendBody, issues: FieldIssue[], textless = false): Texts | undefined {
  if (textless) return body.contents === undefined ? { contents: {}, defaultLanguage: NO_TEXT_LANGUAGE } : undefined;
  const before = issues.length;
  const contents = body.contents && readLanguageMap(body.contents, 'contents', issues);
  const headings = body.headings && readLanguageMap(body.headings, 'headings', issues);
  const subtitle = body.subtitle && readLanguageMap(body.subtitle, 'subtitle', issues);
  if (!contents) return undefined; // missing or wrong shape: already reported
  const languages = Object.keys(contents);
  if (languages.length === 0 && issues.length === before) {
    issues.push({ field: 'contents', message: 'contents needs the message text in at least one language.' });
  }
  if (issues.length > before) return undefined;
  // Contract "Language rule": en when contents has it, else the first language of contents.
  const defaultLanguage = Object.hasOwn(contents, 'en') ? 'en' : languages[0];
  const texts: Texts = { contents, defaultLanguage };
  if (headings && Object.keys(headings).length > 0) texts.headings = headings;
  if (subtitle && Object.keys(subtitle).length > 0) texts.subtitle = subtitle;
  return texts;
}

/** A tap link: https, or an address handled by the app (`myapp://…`). */
function linkProblem(field: string, link: string): string | undefined {
  if (codePointLength(link) > LIMITS.url) return `${field} is longer than ${LIMITS.url} characters.`;
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
export function readUrl(body: SendBody, issues: FieldIssue[]): string | undefined {
  const problems = (['url', 'app_url'] as const)
    .filter((field) => body[field] !== undefined)
    .map((field): Partial<FieldIssue> => ({ field, message: linkProblem(field, body[field]!) }))
    .filter((p): p is FieldIssue => p.message !== undefined);
  issues.push(...problems);
  if (problems.length > 0) return undefined;
  if (body.url !== undefined && body.app_url !== undefined && body.url !== body.app_url) {
    issues.push({ field: 'url', message: 'url and app_url differ. Send one link.' });
    return undefined;
  }
  return body.url ?? body.app_url;
}

/** `big_picture`, or `ios_attachments` with exactly one https entry; both given must be equal. */
export function readImage(body: SendBody, issues: FieldIssue[]): string | undefined {
  const before = issues.length;
  // The length first: the schema (and so the CRD and the OpenAPI document) states it, and an
  // address is parsed only once it is known to be bounded.
  if (body.big_picture !== undefined && codePointLength(body.big_picture) > LIMITS.image_url) {
    issues.push({ field: 'big_picture', message: `big_picture is longer than ${LIMITS.image_url} characters.` });
  } else if (body.big_picture !== undefined && !isHttps(body.big_picture)) {
    issues.push({ field: 'big_picture', message: 'big_picture must be an https image address.' });
  }
  let attachment: string | undefined;
  if (body.ios_attachments !== undefined) {
    const values = Object.values(body.ios_attachments);
    if (values.length !== 1) {
      issues.push({ field: 'ios_attachments', message: 'ios_attachments must hold exactly one image, such as {"id": "https://…"}.' });
    } else if (codePointLength(values[0]) > LIMITS.image_url) {
      issues.push({ field: 'ios_attachments', message: `ios_attachments holds an address longer than ${LIMITS.image_url} characters.` });
    } else if (!isHttps(values[0])) {
      issues.push({ field: 'ios_attachments', message: 'ios_attachments must hold an https image address.' });
    } else {
      attachment = values[0];
    }
  }
  if (issues.length > before) return undefined;
  if (body.big_picture !== undefined && attachment !== undefined && body.big_picture !== attachment) {
    issues.push({ field: 'big_picture', message: 'big_picture and ios_attachments differ. Send one image.' });
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
export function readData(body: SendBody, issues: FieldIssue[]): Record<string, string> | undefined {
  if (body.data === undefined) return undefined;
  const count = Object.keys(body.data).length;
  if (count > LIMITS.data_entries) {
    issues.push({ field: 'data', message: `data holds at most ${LIMITS.data_entries} entries; this request has ${count}.` });
    return undefined;
  }
  const entries = new Map<string, string>();
  for (const [rawKey, raw] of Object.entries(body.data)) {
    if (raw === null || raw === undefined) continue;
    const key = cutToCodePoints(rawKey, LIMITS.data_key);
    if (entries.has(key)) continue;
    const value = typeof raw === 'string' ? raw : typeof raw === 'object' ? JSON.stringify(raw) : String(raw);
    entries.set(key, cutToCodePoints(value, LIMITS.data_value));
  }
  // fromEntries defines own properties, so a "__proto__" key stays a plain key.
  return entries.size > 0 ? Object.fromEntries(entries) : undefined;
}

export function readButton(body: SendBody, issues: FieldIssue[]): SendButton | undefined {
  const buttons = body.buttons;
  if (buttons === undefined || buttons.length === 0) return undefined;
  if (buttons.length > 1) {
    issues.push({ field: 'buttons', message: ONE_BUTTON });
    return undefined;
  }
  const { id, text } = buttons[0];
  const before = issues.length;
  for (const [name, value] of [['id', id], ['text', text]] as const) {
    const field = `buttons[0].${name}`;
    const length = codePointLength(value);
    if (length > LIMITS.button) issues.push({ field, message: `${field} is longer than ${LIMITS.button} characters.` });
    else if (value.trim() === '') issues.push({ field, message: `${field} must not be empty.` });
  }
  return issues.length > before ? undefined : { id, text };
}

export function checkBundleId(body: SendBody, bundleId: string, issues: FieldIssue[]): void {
  if (body.bundle_id !== undefined && body.bundle_id !== bundleId) {
    issues.push({ field: 'bundle_id', message: `bundle_id is not this app's bundle id (${bundleId}).` });
  }
}
