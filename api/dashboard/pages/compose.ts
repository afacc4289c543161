// Compose: the form, the REST body it stands for, the review step (audience estimate, the
// notification as iOS shows it, a confirmation for a large audience) and where each validation
// issue goes. The body goes through the same validateSendRequest and acceptSend as
// POST /api/v1/notifications, so the rules and their messages are the REST call's; each issue is
// shown next to the form area of the body field it names (its `field`, never its wording). Every
// text input's maxlength is the rule's limit (core/validation/limits.ts).
import type { FieldIssue } from '../../../core/errors.js';
import { parseSendAfter } from '../../../core/time/send-after.js';
import { zonedInstant } from '../../../core/time/zone-clock.js';
import { LIMITS } from '../../../core/validation/limits.js';
import { errorList, invalidWhen } from '../errors.js';
import { html, type Html } from '../html.js';
import type { DashboardSession } from '../session.js';
import { LANGUAGES, TIME_ZONES } from './choices.js';
import { count } from './format.js';
import { messageDetails } from './message.js';
import type { SendRequest } from '../../../core/send-model/request.js';
import { EVERYONE } from '../../../core/formats/built-in-segments.js';

export type ComposeForm = Record<string, string>;
/** The language rows a form shows: three, or as many as it holds (a template's, up to the languages' limit). */
export function langRows(form: ComposeForm): number[] {
  let rows = 3;
  for (const key of Object.keys(form)) {
    const m = /^lang_(\d{1,3})$/.exec(key);
    if (m && form[key] && Number(m[1]) < LIMITS.languages) rows = Math.max(rows, Number(m[1]) + 1);
  }
  return Array.from({ length: rows }, (_, i) => i);
}
const TARGETS = [
  ['segment', 'Segment'],
  ['tag', 'Tag'],
  ['subscription_ids', 'Subscription ids'],
  ['external_ids', 'External ids'],
] as const;
const RELATIONS = ['=', '!=', '>', '<', 'exists', 'not_exists'];
const BADGES = [['None', 'Leave the badge as it is'], ['SetTo', 'Set to'], ['Increase', 'Increase by']] as const;
const LEVELS = [['', 'Active (default)'], ['passive', 'Passive'], ['active', 'Active'], ['time_sensitive', 'Time sensitive'], ['critical', 'Critical']] as const;
/** From this many devices, sending asks to confirm the audience's size. */
export const LARGE_AUDIENCE = 1000;
/** The form's fields, each bounded: what the review step carries over in hidden inputs. */
const FIELDS_KEPT = /^(name|template_id|(lang|heading|subtitle|content)_\d{1,2}|target|segment|tag_key|tag_relation|tag_value|ids|send_after|send_tz|throttle|url|ios_sound|ios_badgeType|ios_badgeCount|content_available|ttl|ios_interruption_level)$/;

/** The form area that shows the issues of each body field (by its first name: `contents.en` → contents). */
const AREAS: Record<string, string> = {
  name: 'name',
  contents: 'contents',
  headings: 'headings',
  subtitle: 'subtitle',
  included_segments: 'audience',
  tag: 'audience',
  filters: 'audience',
  excluded_segments: 'audience',
  include_subscription_ids: 'audience',
  include_external_ids: 'audience',
  include_aliases: 'audience',
  ios_sound: 'sound',
  ios_badgeType: 'badge',
  ios_badgeCount: 'badge',
  content_available: 'silent',
  ttl: 'ttl',
  ios_interruption_level: 'interruption',
  send_after: 'send_after',
  delayed_option: 'send_after',
  delivery_time_of_day: 'send_after',
  throttle_rate_per_minute: 'throttle',
  url: 'url',
  template_id: 'template',
};

/** The area an issue is shown in: its field's, or the top of the form (the body as a whole). */
export function areaOf(field: string): string {
  const first = /^[^.[]*/.exec(field)![0];
  return Object.hasOwn(AREAS, first) ? AREAS[first] : 'form';
}

/**
 * Bounds of the form's own inputs, from the rules they stand for. The ids box holds a whole list,
 * read up to the form body's 64 kB (routes.ts): room for 500 ids of about 80 characters each.
 */
export const FORM_MAXLENGTH = {
  name: LIMITS.name,
  heading: LIMITS.headings,
  subtitle: LIMITS.subtitle,
  content: LIMITS.contents,
  tag_key: LIMITS.tag,
  tag_value: LIMITS.tag,
  ids: 40_000,
  ios_sound: LIMITS.ios_sound,
  ios_badgeCount: String(LIMITS.badge_min).length,
  ttl: String(LIMITS.ttl_seconds).length,
  throttle: String(LIMITS.throttle_max).length,
  url: LIMITS.url,
} as const;

const list = (text: string | undefined) => (text ?? '').split(/[\s,]+/).filter(Boolean);
/** A whole number as a number; anything else as given, so the REST rule and its sentence apply. */
const integer = (text: string) => (/^-?\d{1,10}$/.test(text) ? Number(text) : text);
const LOCAL_TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)$/;

/**
 * The instant a datetime-local value means in a time zone. What is not one (an unknown zone, a
 * date or hour that does not exist such as 30 February or 24:00) is passed on as written, so
 * send_after's rule refuses it with its sentence, as it does in UTC and over REST.
 */
export function sendAfterIn(local: string, zone: string): string {
  if (/Z$|[+-]\d\d:\d\d$/.test(local)) return local;
  const m = LOCAL_TIME.exec(local);
  if (!zone || zone === 'UTC') return m ? `${local}Z` : local;
  // zonedInstant would roll an impossible time over (30 February to 2 March), so the REST rule's
  // own parser decides first whether the wall-clock time exists at all.
  if (!m || !TIME_ZONES.includes(zone) || !parseSendAfter(`${local}Z`)) return `${local} ${zone}`;
  return zonedInstant({ zone }, Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])).toISOString();
}

/**
 * A text as typed: a browser posts every line break of a form's value as CR LF (HTML's form
 * submission), so a template's "a\nb" came back "a\r\nb" and compose sent other text than the
 * template (and than a REST send naming it). CR LF and a lone CR are read as the LF typed.
 */
const typed = (text: string | undefined) => text?.replace(/\r\n?/g, '\n');

/** The REST body the form stands for (empty fields are left out, as a caller would). */
export function bodyFromForm(form: ComposeForm, appId: string): Record<string, unknown> {
  const body: Record<string, unknown> = { app_id: appId };
  const contents: Record<string, string> = {};
  const headings: Record<string, string> = {};
  const subtitle: Record<string, string> = {};
  for (const i of langRows(form)) {
    const lang = (form[`lang_${i}`] ?? '').trim();
    if (!lang) continue;
    if (form[`content_${i}`]) contents[lang] = typed(form[`content_${i}`])!;
    if (form[`heading_${i}`]) headings[lang] = typed(form[`heading_${i}`])!;
    if (form[`subtitle_${i}`]) subtitle[lang] = typed(form[`subtitle_${i}`])!;
  }
  const silent = form.content_available === 'on';
  // Started from a template (core/templates/apply-template.ts fills the rest when the send is
  // accepted, the body's own fields first): the form shows every language of the template, so its
  // texts go whole, an emptied map included, and replace the template's rather than fall back to them.
  const fromTemplate = !!form.template_id;
  if (fromTemplate) body.template_id = form.template_id;
  // A silent push may go without text; any other send needs contents (the REST rule says so).
  if (!silent || Object.keys(contents).length) body.contents = contents;
  if (fromTemplate || Object.keys(headings).length) body.headings = headings;
  if (fromTemplate || Object.keys(subtitle).length) body.subtitle = subtitle;
  if (form.name) body.name = form.name;
  const target = form.target;
  if (target === 'segment') body.included_segments = [form.segment ?? ''];
  if (target === 'tag') body.tag = { key: form.tag_key ?? '', relation: form.tag_relation ?? '=', ...(form.tag_value ? { value: form.tag_value } : {}) };
  if (target === 'subscription_ids') body.include_subscription_ids = list(form.ids);
  if (target === 'external_ids') body.include_external_ids = list(form.ids);
  if (form.send_after) body.send_after = sendAfterIn(form.send_after, form.send_tz ?? 'UTC');
  if (form.throttle) body.throttle_rate_per_minute = /^\d+$/.test(form.throttle) ? Number(form.throttle) : form.throttle;
  if (form.url) body.url = form.url;
  // A template may hold its link as app_url, which the body's own url does not replace (both given
  // must be equal: the link typed here was a 422). Both names, equal, replace either.
  if (form.url && fromTemplate) body.app_url = form.url;
  if (form.ios_sound) body.ios_sound = form.ios_sound;
  if (form.ios_badgeType && form.ios_badgeType !== 'None') {
    body.ios_badgeType = form.ios_badgeType;
    if (form.ios_badgeCount) body.ios_badgeCount = integer(form.ios_badgeCount);
  }
  if (silent) body.content_available = true;
  if (form.ttl) body.ttl = integer(form.ttl);
  if (form.ios_interruption_level) body.ios_interruption_level = form.ios_interruption_level;
  return body;
}

/** The form's own fields only, for the review step's hidden inputs. */
export const keptFields = (form: ComposeForm) => Object.entries(form).filter(([k, v]) => FIELDS_KEPT.test(k) && v !== '');

const errorsFor = (area: string, errors: Map<string, string[]>) => errorList(area, errors.get(area));
const described = (area: string, errors: Map<string, string[]>) => invalidWhen(area, errors.has(area));
/** The language list, and a template's language that is not in it (its code, so it is kept as written). */
const languageChoices = (chosen: string): readonly (readonly [string, string])[] =>
  chosen && !LANGUAGES.some(([code]) => code === chosen) ? [...LANGUAGES, [chosen, chosen]] : LANGUAGES;

/** Start from a template: a GET form of its own (forms do not nest), which reloads compose filled from it. */
function templatePicker(t: ComposeTemplates): Html {
  if (!t.choices?.length) return html``;
  return html`<form method="get" action="/dashboard/compose" class="template-pick">
    <label>Start from a template <select name="template"><option value="">—</option>${t.choices.map((c) => html`<option value="${c.id}" ${t.chosen?.id === c.id ? html`selected` : ''}>${c.name}</option>`)}</select></label>
    <button type="submit" class="secondary-button">Use this template</button>
    ${t.more ? html`<a href="/dashboard/templates">All templates</a>` : ''}
  </form>`;
}

/** Which template the form started from, and what of it goes out without a field here. */
function templateNote(form: ComposeForm, chosen: ComposeTemplates['chosen']): Html {
  if (!form.template_id) return html``;
  return html`<input type="hidden" name="template_id" value="${form.template_id}">
    <p class="note" id="template-note">From the template ${chosen ? html`<a href="/dashboard/templates/${chosen.id}">${chosen.name}</a>` : form.template_id}.
    ${chosen?.notShown.length ? `Its other fields (${chosen.notShown.join(', ')}) go out as the template holds them. ` : ''}A field emptied here keeps the template's value; the texts are replaced whole.
    <a href="/dashboard/compose">Start without a template</a></p>`;
}

/**
 * A text box that gives back the text it was given. The HTML parser drops a textarea's first line
 * break, so one is written before the value (a template's text starting with a line break keeps it).
 */
const textArea = (name: string, value: string, maxlength: number, rows: number) =>
  html`<textarea name="${name}" rows="${rows}" maxlength="${maxlength}">${'\n'}${value}</textarea>`;
/** A one-line input, or a textarea for a text holding a line break (an input's value loses its line breaks). */
const textInput = (name: string, value: string, maxlength: number) =>
  /[\r\n]/.test(value) ? textArea(name, value, maxlength, 2) : html`<input name="${name}" value="${value}" maxlength="${maxlength}">`;

const options = (choices: readonly (readonly [string, string])[], chosen: string) =>
  choices.map(([value, label]) => html`<option value="${value}" ${chosen === value ? html`selected` : ''}>${label}</option>`);

/** The notification as iOS shows it on the lock screen: app, time, title, subtitle and (cut) text. */
export function iosPreview(appName: string, form: ComposeForm): Html {
  const silent = form.content_available === 'on';
  const first = langRows(form).find((i) => form[`lang_${i}`]) ?? 0;
  return html`<figure class="ios-preview" id="preview" aria-labelledby="preview-caption">
    <figcaption id="preview-caption">Preview: the notification as iOS shows it</figcaption>
    <div class="phone">
      <div class="banner" ${silent ? html`hidden` : ''}>
        <div class="banner-head"><img src="/dashboard/assets/favicon.svg" alt="" width="20" height="20"><span class="app">${appName}</span><span class="time">now</span></div>
        <p class="title" data-preview="heading">${form[`heading_${first}`] ?? ''}</p>
        <p class="subtitle" data-preview="subtitle">${form[`subtitle_${first}`] ?? ''}</p>
        <p class="body" data-preview="content">${form[`content_${first}`] ?? ''}</p>
      </div>
      <p class="silent-note" ${silent ? '' : html`hidden`}>A silent push shows nothing: iOS wakes the app in the background.</p>
    </div>
  </figure>`;
}

/** A template compose may start from (the chooser), and the one it started from. */
export interface ComposeTemplates {
  choices?: Array<{ id: string; name: string }>;
  /** More templates than the chooser lists: a link to the templates page. */
  more?: boolean;
  chosen?: { id: string; name: string; notShown: string[] };
}

export function composePage(session: DashboardSession, appName: string, segments: string[], form: ComposeForm, issues: FieldIssue[] = [], templates: ComposeTemplates = {}): Html {
  const errors = new Map<string, string[]>();
  for (const { field, message } of issues) errors.set(areaOf(field), [...(errors.get(areaOf(field)) ?? []), message]);
  const max = FORM_MAXLENGTH;
  const v = (name: string, fallback = '') => form[name] ?? fallback;
  const target = v('target', 'segment');
  return html`<h1>New message</h1>
  ${templatePicker(templates)}
  <div class="compose-layout">
  <form method="post" action="/dashboard/compose" class="compose" novalidate>
    <input type="hidden" name="_csrf" value="${session.csrf}">
    ${errorsFor('form', errors)}
    ${templateNote(form, templates.chosen)}${errorsFor('template', errors)}
    <fieldset><legend>Message</legend>
      <label>Name (internal, never shown to users) <input name="name" value="${v('name')}" maxlength="${max.name}" ${described('name', errors)}></label>
      ${errorsFor('name', errors)}
      ${langRows(form).map((i) => html`<div class="lang-row" ${described('contents', errors)}>
        <label>Language <select name="lang_${i}">${i > 0 ? html`<option value="">—</option>` : ''}${options(languageChoices(v(`lang_${i}`)), v(`lang_${i}`, i === 0 ? 'en' : ''))}</select></label>
        <label>Title ${textInput(`heading_${i}`, v(`heading_${i}`), max.heading)}</label>
        <label>Subtitle ${textInput(`subtitle_${i}`, v(`subtitle_${i}`), max.subtitle)}</label>
        <label class="grow">Text ${textArea(`content_${i}`, v(`content_${i}`), max.content, 2)}</label>
      </div>`)}
      ${errorsFor('contents', errors)}${errorsFor('headings', errors)}${errorsFor('subtitle', errors)}
    </fieldset>
    <fieldset ${described('audience', errors)}><legend>Audience</legend>
      <label>Send to <select name="target">${options(TARGETS, target)}</select></label>
      <label class="target target-segment">Segment <select name="segment">${segments.map((s) => html`<option ${v('segment', EVERYONE) === s ? html`selected` : ''}>${s}</option>`)}</select></label>
      <div class="target target-tag tag-row">
        <label>Tag key <input name="tag_key" value="${v('tag_key')}" maxlength="${max.tag_key}"></label>
        <label>Relation <select name="tag_relation">${RELATIONS.map((r) => html`<option ${v('tag_relation', '=') === r ? html`selected` : ''}>${r}</option>`)}</select></label>
        <label>Value <input name="tag_value" value="${v('tag_value')}" maxlength="${max.tag_value}"></label>
      </div>
      <label class="target target-ids">Ids (one per line, up to 500) <textarea name="ids" rows="3" maxlength="${max.ids}">${v('ids')}</textarea></label>
      <p class="note" id="live-estimate" aria-live="polite">The review step shows how many devices this reaches.</p>
      ${errorsFor('audience', errors)}
    </fieldset>
    <fieldset><legend>On iOS</legend>
      <label>Sound (a file of the app, empty: default) <input name="ios_sound" value="${v('ios_sound')}" maxlength="${max.ios_sound}" ${described('sound', errors)}></label>
      ${errorsFor('sound', errors)}
      <div class="tag-row" ${described('badge', errors)}>
        <label>Badge <select name="ios_badgeType">${options(BADGES, v('ios_badgeType', 'None'))}</select></label>
        <label>Badge count <input name="ios_badgeCount" inputmode="numeric" value="${v('ios_badgeCount')}" maxlength="${max.ios_badgeCount}" size="6"></label>
      </div>
      ${errorsFor('badge', errors)}
      <label class="check"><input type="checkbox" name="content_available" ${v('content_available') === 'on' ? html`checked` : ''} ${described('silent', errors)}> Silent push (wakes the app in the background, shows nothing)</label>
      ${errorsFor('silent', errors)}
      <label>Time to live (seconds, empty: 3 days; 0: now or never) <input name="ttl" inputmode="numeric" value="${v('ttl')}" maxlength="${max.ttl}" ${described('ttl', errors)}></label>
      ${errorsFor('ttl', errors)}
      <label>Interruption level <select name="ios_interruption_level" ${described('interruption', errors)}>${options(LEVELS, v('ios_interruption_level'))}</select></label>
      ${errorsFor('interruption', errors)}
    </fieldset>
    <fieldset><legend>Delivery</legend>
      <div class="tag-row">
        <label>Send at (empty: now) <input type="datetime-local" name="send_after" value="${v('send_after')}" ${described('send_after', errors)}></label>
        <label>Time zone <select name="send_tz">${TIME_ZONES.map((z) => html`<option ${v('send_tz', 'UTC') === z ? html`selected` : ''}>${z}</option>`)}</select></label>
      </div>
      ${errorsFor('send_after', errors)}
      <label>Throttle (devices per minute, empty: none) <input name="throttle" inputmode="numeric" value="${v('throttle')}" maxlength="${max.throttle}" ${described('throttle', errors)}></label>
      ${errorsFor('throttle', errors)}
      <label>Link (optional) <input type="url" name="url" value="${v('url')}" maxlength="${max.url}" ${described('url', errors)}></label>
      ${errorsFor('url', errors)}
    </fieldset>
    <button type="submit" name="step" value="review">Review</button>
  </form>
  ${iosPreview(appName, form)}
  </div>`;
}

export interface Review {
  /** The send as its rules read it, the template's fields filled in: what goes out. */
  request: SendRequest;
  /** The template it names (`name` null: not found, the Send step's 422 follows) and the version read (its updated_at). */
  template?: { id: string; name: string | null; version?: string };
  /** Why Review is shown again instead of sending (the template changed since). */
  notice?: string;
  estimate: number;
  audience: string;
  when: string;
  /** The sentence asking to confirm a large audience again (the box was not ticked). */
  confirmError?: string;
  /** A random UUID this review's Send carries: its idempotency key, so a double click sends once. */
  sendKey: string;
}

/**
 * The step between the form and the send: everything that goes out, before the button (issue 30
 * point 6): the name, who and how many, when, the throttle, the whole message (every language, the
 * link, data and button, the iOS fields, the template: message.ts), the preview, and the
 * confirmation of a large audience.
 */
export function reviewPage(session: DashboardSession, appName: string, form: ComposeForm, review: Review): Html {
  const large = review.estimate >= LARGE_AUDIENCE;
  return html`<h1>Review the message</h1>
  <div class="compose-layout">
  <form method="post" action="/dashboard/compose" class="compose review">
    <input type="hidden" name="_csrf" value="${session.csrf}">
    ${keptFields(form).map(([k, val]) => html`<input type="hidden" name="${k}" value="${val}">`)}
    <input type="hidden" name="send_key" value="${review.sendKey}">
    ${review.template?.version ? html`<input type="hidden" name="template_seen" value="${review.template.version}">` : ''}
    ${review.notice ? html`<p class="field-errors" role="alert" id="review-notice">${review.notice}</p>` : ''}
    <dl class="header" id="review-summary">
      <div><dt>Name</dt><dd data-field="Name">${review.request.name ?? '—'}</dd></div>
      <div><dt>Audience</dt><dd data-field="Audience">${review.audience}</dd></div>
      <div><dt>Estimate</dt><dd id="estimate">${count(review.estimate)} device${review.estimate === 1 ? '' : 's'}</dd></div>
      <div><dt>When</dt><dd id="when">${review.when}</dd></div>
      <div><dt>Throttle</dt><dd data-field="Throttle">${review.request.throttleRatePerMinute ? `${count(review.request.throttleRatePerMinute)} per minute` : 'none'}</dd></div>
    </dl>
    <section class="review-message" aria-label="The message">${messageDetails({ ...review.request, template: review.template && { id: review.template.id, name: review.template.name } })}</section>
    ${large
      ? html`<label class="check confirm-large"><input type="checkbox" name="confirm_audience" value="${review.estimate}" ${invalidWhen('confirm', !!review.confirmError)}> I want to send this to ${count(review.estimate)} devices</label>
        ${errorList('confirm', review.confirmError ? [review.confirmError] : [])}`
      : ''}
    <div class="confirm">
      <button type="submit" name="step" value="send">Send to ${count(review.estimate)} device${review.estimate === 1 ? '' : 's'}</button>
      <button type="submit" name="step" value="edit" class="secondary-button">Edit</button>
    </div>
  </form>
  ${iosPreview(appName, form)}
  </div>`;
}
