// Who a composed send goes to (issue 40 point 4): one target kind, chosen in a list, each kind a
// row of this table (its label, its inputs, the REST body it writes); the segments it leaves out;
// and the send's name. `filters` is typed as JSON in the segment editor's condition language, read
// by the REST rules themselves (docs/decisions.md "Issue 27 — segments as resources"). Several
// included segments (OneSignal's other clients, issue 38) are the segment row's ticked boxes.
import { EVERYONE } from '../../../core/formats/built-in-segments.js';
import { LIMITS } from '../../../core/validation/limits.js';
import { TAG_RELATIONS } from '../../../core/formats/tags.js';
import { html, type Html } from '../html.js';
import { copyText, described, errorsFor, jsonField, options, textArea, type FormField, type FormValues, type RenderContext } from './form-field.js';
import { TARGET_FIELDS, TARGET_KINDS, type TargetKind } from '../../../core/audience/target-kinds.js';

/** The example of a filters list, shared with the segment editor. */
export const FILTERS_EXAMPLE = '[{"field": "tag", "key": "plan", "relation": "=", "value": "gold"}, {"operator": "OR"}, {"field": "language", "relation": "=", "value": "fr"}]';
/** Room for 500 ids of about 80 characters each, within the form body's bound. */
const IDS_CHARS = 40_000;
/** Room for the longest filters a send takes (200 entries of 128-character keys and values). */
const FILTERS_CHARS = 64_000;

const list = (text: string | undefined) => (text ?? '').split(/[\s,]+/).filter(Boolean);

/**
 * The segments a form includes, in the page's order: its ticked `segment_<i>` boxes, after a
 * single `segment` (a form written before several could be ticked, or by hand). None is an empty
 * list, which the REST rule refuses with its sentence.
 */
function includedSegments(form: FormValues): string[] {
  const ticked = Object.entries(form).filter(([k, v]) => /^segment_\d{1,3}$/.test(k) && v)
    .sort(([a], [b]) => Number(a.slice(8)) - Number(b.slice(8))).map(([, v]) => v);
  return [...new Set([...(form.segment ? [form.segment] : []), ...ticked])];
}

/** A kind the form offers: its row of the table (core/audience/target-kinds.ts) names the body field it writes. */
interface FormTargetKind {
  value: TargetKind;
  label: string;
  render(form: FormValues, ctx: RenderContext): Html;
  toBody(form: FormValues, body: Record<string, unknown>): void;
}

const FORM_TARGET_KINDS: FormTargetKind[] = [
  {
    value: 'segment', label: 'Segments',
    render: (form, ctx) => {
      // A new form (no target chosen yet, or a template's) starts at Everyone; a posted one shows what it named, none included.
      const chosen = new Set(form.target === undefined && !includedSegments(form).length ? [EVERYONE] : includedSegments(form));
      return html`<fieldset class="target target-segment"><legend>Segments (any of them: their union, up to ${LIMITS.included_segments})</legend>
        ${ctx.segments.map((s, i) => html`<label class="check"><input type="checkbox" name="segment_${i}" value="${s}" ${chosen.has(s) ? html`checked` : ''}> ${s}</label>`)}
      </fieldset>`;
    },
    toBody: (form, body) => void (body[TARGET_KINDS.segment.field] = includedSegments(form)),
  },
  {
    value: 'tag', label: 'Tag',
    render: (form) => html`<div class="target target-tag tag-row">
        <label>Tag key <input name="tag_key" value="${form.tag_key ?? ''}" maxlength="${LIMITS.tag}"></label>
        <label>Relation <select name="tag_relation">${TAG_RELATIONS.map((r) => html`<option ${(form.tag_relation ?? '=') === r ? html`selected` : ''}>${r}</option>`)}</select></label>
        <label>Value <input name="tag_value" value="${form.tag_value ?? ''}" maxlength="${LIMITS.tag}"></label>
      </div>`,
    toBody: (form, body) => void (body[TARGET_KINDS.tag.field] = { key: form.tag_key ?? '', relation: form.tag_relation ?? '=', ...(form.tag_value ? { value: form.tag_value } : {}) }),
  },
  {
    value: 'filters', label: 'Filters',
    render: (form) => html`<label class="target target-filters">Filters (JSON: conditions on tags, language, sessions, as a segment's; docs/api.md "Filters") ${textArea('filters', form.filters ?? '', FILTERS_CHARS, 4, html`class="mono" placeholder="${FILTERS_EXAMPLE}"`)}</label>`,
    toBody: (form, body) => void (body[TARGET_KINDS.filters.field] = jsonField('filters', form.filters ?? '', FILTERS_EXAMPLE)),
  },
  {
    value: 'subscription_ids', label: 'Subscription ids',
    render: (form) => html`<label class="target target-ids">Ids (one per line, up to ${LIMITS.ids_per_list}) <textarea name="ids" rows="3" maxlength="${IDS_CHARS}">${form.ids ?? ''}</textarea></label>`,
    toBody: (form, body) => void (body[TARGET_KINDS.subscription_ids.field] = list(form.ids)),
  },
  {
    value: 'external_ids', label: 'External ids',
    render: () => html``, // the same ids box, shown for either list kind
    toBody: (form, body) => void (body[TARGET_KINDS.external_ids.field] = list(form.ids)),
  },
];

/** The form inputs of the audience (the estimate's question: compose's script and estimate.json). */
export const AUDIENCE_INPUTS = /^(target|segment|segment_\d{1,3}|tag_key|tag_relation|tag_value|filters|ids|exclude_\d{1,3})$/;
/** The inputs the live estimate reads: the audience's and the platform choice (isIos / isAndroid narrow the count). */
export const ESTIMATE_INPUTS = /^(target|segment|segment_\d{1,3}|tag_key|tag_relation|tag_value|filters|ids|exclude_\d{1,3}|platforms)$/;

export const audienceField: FormField = {
  area: 'audience',
  body: [...TARGET_FIELDS, 'excluded_segments'],
  inputs: AUDIENCE_INPUTS,
  render(form, ctx) {
    const target = form.target ?? 'segment';
    const excluded = new Set(Object.entries(form).filter(([k]) => /^exclude_\d+$/.test(k)).map(([, v]) => v));
    return html`<label>Send to <select name="target">${options(FORM_TARGET_KINDS.map((k) => [k.value, k.label] as const), target)}</select></label>
      ${FORM_TARGET_KINDS.map((k) => k.render(form, ctx))}
      <fieldset class="exclude" ${described('audience', ctx)}><legend>Leave out (up to ${LIMITS.excluded_segments} segments)</legend>
        ${ctx.segments.map((s, i) => html`<label class="check"><input type="checkbox" name="exclude_${i}" value="${s}" ${excluded.has(s) ? html`checked` : ''}> ${s}</label>`)}
      </fieldset>
      <p class="note" id="live-estimate" aria-live="polite">The review step shows how many devices this reaches.</p>
      ${errorsFor('audience', ctx)}`;
  },
  toBody(form, body) {
    (FORM_TARGET_KINDS.find((k) => k.value === form.target) ?? FORM_TARGET_KINDS[0]).toBody(form, body);
    const excluded = Object.entries(form).filter(([k, v]) => /^exclude_\d{1,3}$/.test(k) && v).map(([, v]) => v);
    if (excluded.length) body.excluded_segments = excluded;
  },
};

export const nameField: FormField = {
  area: 'name',
  body: ['name'],
  inputs: /^name$/,
  render: (form, ctx) => html`<label>Name (internal, never shown to users) <input name="name" value="${form.name ?? ''}" maxlength="${LIMITS.name}" ${described('name', ctx)}></label>${errorsFor('name', ctx)}`,
  toBody: (form, body) => copyText(body, 'name', form.name),
};
