// The message's own fields, shared by compose and the template editor: the texts of each language
// (title, subtitle, text), the link, the image, the button and the data. Each input's maxlength is
// its rule's limit (core/validation/limits.ts): the form never lets through what the rule refuses,
// nor stops short of what it accepts (data is cut by the rule, not refused: the form stops at the cut).
import { LIMITS } from '../../../core/validation/limits.js';
import { html } from '../html.js';
import { LANGUAGES } from './choices.js';
import { languagesOf } from './languages.js';
import { described, errorsFor, options, textArea, textInput, typed, type FormField, type FormValues } from './form-field.js';

/** The language rows a form shows: three, or as many as it holds (a template's, up to the languages' limit). */
export function langRows(form: FormValues): number[] {
  let rows = 3;
  for (const key of Object.keys(form)) {
    const m = /^lang_(\d{1,3})$/.exec(key);
    if (m && form[key] && Number(m[1]) < LIMITS.languages) rows = Math.max(rows, Number(m[1]) + 1);
  }
  return Array.from({ length: rows }, (_, i) => i);
}

/** The language list, and a template's language that is not in it (its code, so it is kept as written). */
const languageChoices = (chosen: string): readonly (readonly [string, string])[] =>
  chosen && !LANGUAGES.some(([code]) => code === chosen) ? [...LANGUAGES, [chosen, chosen]] : LANGUAGES;

const texts = (value: unknown): Record<string, string> =>
  typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};

export const languagesField: FormField = {
  area: 'contents',
  body: ['contents', 'headings', 'subtitle'],
  inputs: /^(lang|heading|subtitle|content)_\d{1,2}$/,
  render: (form, ctx) => html`${langRows(form).map((i) => html`<div class="lang-row" ${described('contents', ctx)}>
      <label>Language <select name="lang_${i}">${i > 0 ? html`<option value="">—</option>` : ''}${options(languageChoices(form[`lang_${i}`] ?? ''), form[`lang_${i}`] ?? (i === 0 ? 'en' : ''))}</select></label>
      <label>Title ${textInput(`heading_${i}`, form[`heading_${i}`] ?? '', LIMITS.headings)}</label>
      <label>Subtitle ${textInput(`subtitle_${i}`, form[`subtitle_${i}`] ?? '', LIMITS.subtitle)}</label>
      <label class="grow">Text ${textArea(`content_${i}`, form[`content_${i}`] ?? '', LIMITS.contents, 2)}</label>
    </div>`)}
    ${errorsFor('contents', ctx)}`,
  toBody(form, body, ctx) {
    const maps: Record<'contents' | 'headings' | 'subtitle', Record<string, string>> = { contents: {}, headings: {}, subtitle: {} };
    for (const i of langRows(form)) {
      const lang = (form[`lang_${i}`] ?? '').trim();
      if (!lang) continue;
      if (form[`content_${i}`]) maps.contents[lang] = typed(form[`content_${i}`])!;
      if (form[`heading_${i}`]) maps.headings[lang] = typed(form[`heading_${i}`])!;
      if (form[`subtitle_${i}`]) maps.subtitle[lang] = typed(form[`subtitle_${i}`])!;
    }
    // From a template the form shows every language of it, so its texts go whole, an emptied map
    // included, and replace the template's rather than fall back to them. A silent push may go
    // without text; any other send needs contents (the REST rule says so).
    if (ctx.fromTemplate || form.content_available !== 'on' || Object.keys(maps.contents).length) body.contents = maps.contents;
    for (const k of ['headings', 'subtitle'] as const) if (ctx.fromTemplate || Object.keys(maps[k]).length) body[k] = maps[k];
  },
  fromBody(content, form) {
    const maps = { contents: texts(content.contents), headings: texts(content.headings), subtitle: texts(content.subtitle) };
    languagesOf(maps).forEach((lang, i) => {
      form[`lang_${i}`] = lang;
      if (maps.contents[lang] !== undefined) form[`content_${i}`] = maps.contents[lang];
      if (maps.headings[lang] !== undefined) form[`heading_${i}`] = maps.headings[lang];
      if (maps.subtitle[lang] !== undefined) form[`subtitle_${i}`] = maps.subtitle[lang];
    });
  },
};

export const linkField: FormField = {
  area: 'url',
  body: ['url', 'app_url'],
  inputs: /^url$/,
  render: (form, ctx) => html`<label>Link (optional) <input type="url" name="url" value="${form.url ?? ''}" maxlength="${LIMITS.url}" ${described('url', ctx)}></label>${errorsFor('url', ctx)}`,
  toBody(form, body, ctx) {
    if (!form.url) return;
    body.url = form.url;
    // A template may hold its link as app_url, which the body's own url does not replace (both
    // given must be equal: the link typed here was a 422). Both names, equal, replace either.
    if (ctx.fromTemplate) body.app_url = form.url;
  },
  fromBody(content, form) {
    const link = content.url ?? content.app_url;
    if (typeof link === 'string') form.url = link;
  },
};

export const imageField: FormField = {
  area: 'image',
  body: ['big_picture', 'ios_attachments'],
  inputs: /^image$/,
  render: (form, ctx) => html`<label>Image (an https address; the app's notification extension shows it) <input type="url" name="image" value="${form.image ?? ''}" maxlength="${LIMITS.image_url}" ${described('image', ctx)}></label>${errorsFor('image', ctx)}`,
  toBody(form, body) {
    if (form.image) body.big_picture = form.image;
  },
  fromBody(content, form) {
    // ios_attachments is another way to name it (its one entry's value).
    const attached = typeof content.ios_attachments === 'object' && content.ios_attachments !== null ? Object.values(content.ios_attachments)[0] : undefined;
    const image = content.big_picture ?? attached;
    if (typeof image === 'string') form.image = image;
  },
};

export const buttonField: FormField = {
  area: 'button',
  body: ['buttons'],
  inputs: /^button_(id|text)$/,
  render: (form, ctx) => html`<div class="tag-row" ${described('button', ctx)}>
      <label>Button text <input name="button_text" value="${form.button_text ?? ''}" maxlength="${LIMITS.button}"></label>
      <label>Button id (what the app is told was tapped) <input name="button_id" value="${form.button_id ?? ''}" maxlength="${LIMITS.button}"></label>
    </div>${errorsFor('button', ctx)}`,
  toBody(form, body) {
    // One button at most (the contract); either half typed sends it, so a missing half is the rule's sentence.
    if (form.button_id || form.button_text) body.buttons = [{ id: form.button_id ?? '', text: form.button_text ?? '' }];
  },
  fromBody(content, form) {
    const first = Array.isArray(content.buttons) ? (content.buttons[0] as Record<string, unknown> | undefined) : undefined;
    if (typeof first?.id === 'string') form.button_id = first.id;
    if (typeof first?.text === 'string') form.button_text = first.text;
  },
};

/** The data rows a form shows: what it holds and two empty ones (three at least), up to the entries a send may carry. */
export function dataRows(form: FormValues): number[] {
  let filled = 0;
  for (const key of Object.keys(form)) {
    const m = /^data_key_(\d{1,4})$/.exec(key);
    if (m && form[key] && Number(m[1]) < LIMITS.data_entries) filled = Math.max(filled, Number(m[1]) + 1);
  }
  return Array.from({ length: Math.min(LIMITS.data_entries, Math.max(3, filled + 2)) }, (_, i) => i);
}

export const dataField: FormField = {
  area: 'data',
  body: ['data'],
  inputs: /^data_(key|value)_\d{1,4}$/,
  render: (form, ctx) => html`<div class="data-rows" ${described('data', ctx)}>${dataRows(form).map((i) => html`<div class="tag-row">
      <label>Data key <input name="data_key_${i}" value="${form[`data_key_${i}`] ?? ''}" maxlength="${LIMITS.data_key}"></label>
      <label class="grow">Data value ${textInput(`data_value_${i}`, form[`data_value_${i}`] ?? '', LIMITS.data_value)}</label>
    </div>`)}</div>
    <p class="note">The app reads these when the notification is tapped. More rows: Review, then Edit.</p>${errorsFor('data', ctx)}`,
  toBody(form, body) {
    const data: Record<string, string> = {};
    for (const i of dataRows(form)) if (form[`data_key_${i}`]) data[form[`data_key_${i}`]] = typed(form[`data_value_${i}`]) ?? '';
    if (Object.keys(data).length) body.data = data;
  },
  fromBody(content, form) {
    if (typeof content.data !== 'object' || content.data === null) return;
    Object.entries(content.data).forEach(([k, v], i) => {
      form[`data_key_${i}`] = k;
      form[`data_value_${i}`] = typeof v === 'string' ? v : JSON.stringify(v);
    });
  },
};

export const MESSAGE_FIELDS = [languagesField, linkField, imageField, buttonField, dataField];
