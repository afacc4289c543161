// Compose: the form, the REST body it stands for, and where each validation sentence goes. The
// body goes through the same validateSendRequest and createSend as POST /api/v1/notifications, so
// the rules and their messages are the REST call's; each message is shown next to the field it
// names (sentences name REST fields, e.g. "send_after …").
import { html, type Html } from '../html.js';
import type { DashboardSession } from '../session.js';

export type ComposeForm = Record<string, string>;
const LANGS = [0, 1, 2];
const TARGETS = [
  ['segment', 'Segment'],
  ['tag', 'Tag'],
  ['subscription_ids', 'Subscription ids'],
  ['external_ids', 'External ids'],
] as const;
const RELATIONS = ['=', '!=', '>', '<', 'exists', 'not_exists'];
// The field a sentence is shown under: the first REST field name it mentions.
const FIELDS: [RegExp, string][] = [
  [/\bcontents\b|default language|language/, 'contents'],
  [/\bheadings\b/, 'headings'],
  [/\bsend_after\b|delayed_option|delivery_time_of_day/, 'send_after'],
  [/\bthrottle_rate_per_minute\b/, 'throttle'],
  [/\bincluded_segments\b|\bsegment\b|\btag\b|filters|include_subscription_ids|include_external_ids|target|audience/i, 'audience'],
];

export function fieldOf(message: string): string {
  return FIELDS.find(([re]) => re.test(message))?.[1] ?? 'form';
}

const list = (text: string | undefined) => (text ?? '').split(/[\s,]+/).filter(Boolean);

/** The REST body the form stands for (empty fields are left out, as a caller would). */
export function bodyFromForm(form: ComposeForm, appId: string): Record<string, unknown> {
  const body: Record<string, unknown> = { app_id: appId };
  const contents: Record<string, string> = {};
  const headings: Record<string, string> = {};
  for (const i of LANGS) {
    const lang = (form[`lang_${i}`] ?? '').trim();
    if (!lang) continue;
    if (form[`content_${i}`]) contents[lang] = form[`content_${i}`];
    if (form[`heading_${i}`]) headings[lang] = form[`heading_${i}`];
  }
  body.contents = contents;
  if (Object.keys(headings).length) body.headings = headings;
  const target = form.target;
  if (target === 'segment') body.included_segments = [form.segment ?? ''];
  if (target === 'tag') body.tag = { key: form.tag_key ?? '', relation: form.tag_relation ?? '=', ...(form.tag_value ? { value: form.tag_value } : {}) };
  if (target === 'subscription_ids') body.include_subscription_ids = list(form.ids);
  if (target === 'external_ids') body.include_external_ids = list(form.ids);
  if (form.send_after) body.send_after = /Z|[+-]\d\d:\d\d$/.test(form.send_after) ? form.send_after : `${form.send_after}Z`;
  if (form.throttle) body.throttle_rate_per_minute = /^\d+$/.test(form.throttle) ? Number(form.throttle) : form.throttle;
  if (form.url) body.url = form.url;
  return body;
}

function errorsFor(field: string, errors: Map<string, string[]>): Html {
  const list = errors.get(field);
  return list ? html`<ul class="field-errors" id="${field}-errors" role="alert">${list.map((m) => html`<li>${m}</li>`)}</ul>` : html``;
}

const described = (field: string, errors: Map<string, string[]>) => (errors.has(field) ? html`aria-describedby="${field}-errors" aria-invalid="true"` : html``);

export function composePage(session: DashboardSession, segments: string[], form: ComposeForm, messages: string[] = []): Html {
  const errors = new Map<string, string[]>();
  for (const m of messages) errors.set(fieldOf(m), [...(errors.get(fieldOf(m)) ?? []), m]);
  const v = (name: string, fallback = '') => form[name] ?? fallback;
  const target = v('target', 'segment');
  return html`<h1>New message</h1>
  <form method="post" action="/dashboard/compose" class="compose" novalidate>
    <input type="hidden" name="_csrf" value="${session.csrf}">
    ${errorsFor('form', errors)}
    <fieldset ${described('contents', errors)}><legend>Message</legend>
      ${LANGS.map((i) => html`<div class="lang-row">
        <label>Language <input name="lang_${i}" value="${v(`lang_${i}`, i === 0 ? 'en' : '')}" maxlength="8" size="4" autocomplete="off"></label>
        <label>Title <input name="heading_${i}" value="${v(`heading_${i}`)}" maxlength="120"></label>
        <label class="grow">Text <textarea name="content_${i}" rows="2" maxlength="2000">${v(`content_${i}`)}</textarea></label>
      </div>`)}
      ${errorsFor('contents', errors)}${errorsFor('headings', errors)}
    </fieldset>
    <fieldset ${described('audience', errors)}><legend>Audience</legend>
      <label>Send to <select name="target">${TARGETS.map(([k, label]) => html`<option value="${k}" ${target === k ? html`selected` : ''}>${label}</option>`)}</select></label>
      <label>Segment <select name="segment">${segments.map((s) => html`<option ${v('segment', 'Subscribed Users') === s ? html`selected` : ''}>${s}</option>`)}</select></label>
      <div class="tag-row">
        <label>Tag key <input name="tag_key" value="${v('tag_key')}" maxlength="128"></label>
        <label>Relation <select name="tag_relation">${RELATIONS.map((r) => html`<option ${v('tag_relation', '=') === r ? html`selected` : ''}>${r}</option>`)}</select></label>
        <label>Value <input name="tag_value" value="${v('tag_value')}" maxlength="256"></label>
      </div>
      <label>Ids (one per line) <textarea name="ids" rows="3">${v('ids')}</textarea></label>
      ${errorsFor('audience', errors)}
    </fieldset>
    <fieldset><legend>Delivery</legend>
      <label>Send after (UTC, empty: now) <input type="datetime-local" name="send_after" value="${v('send_after')}" ${described('send_after', errors)}></label>
      ${errorsFor('send_after', errors)}
      <label>Throttle (devices per minute, empty: none) <input name="throttle" inputmode="numeric" value="${v('throttle')}" ${described('throttle', errors)}></label>
      ${errorsFor('throttle', errors)}
      <label>Link (optional) <input type="url" name="url" value="${v('url')}" maxlength="2048"></label>
    </fieldset>
    <button type="submit">Send</button>
  </form>`;
}
