// The two message forms as lists of sections of field rows (form-field.ts): compose (a send: name,
// message, audience, iOS, delivery) and the template editor (a template: the message and how it
// shows, TEMPLATE_FIELDS' every field), and what both derive from their rows: the REST body, where
// each issue goes, the inputs Review carries over, the form a template's content fills, and the
// fieldsets on the page. Android's fields and the platform choice are one more section of rows.
import type { FieldIssue } from '../../../core/errors.js';
import { html, type Html } from '../html.js';
import { audienceField, nameField } from './audience-fields.js';
import { throttleField, whenField } from './delivery-fields.js';
import { fieldsOf, type BodyContext, type FormSection, type FormValues, type RenderContext } from './form-field.js';
import { ANDROID_FIELDS } from './android-fields.js';
import { IOS_DELIVERY_FIELDS, IOS_MORE_FIELDS, IOS_SHOWN_FIELDS, ttlField } from './ios-fields.js';
import { MESSAGE_FIELDS } from './message-fields.js';

export const COMPOSE_SECTIONS: FormSection[] = [
  { legend: 'Message', fields: [nameField, ...MESSAGE_FIELDS] },
  { legend: 'Audience', fields: [audienceField] },
  { legend: 'On iOS', fields: [...IOS_SHOWN_FIELDS, ...IOS_DELIVERY_FIELDS] },
  { legend: 'More iOS options', fields: IOS_MORE_FIELDS, folded: true },
  { legend: 'Android', fields: ANDROID_FIELDS },
  { legend: 'Delivery', fields: [whenField, ttlField, throttleField] },
];

/** A template's content: what TEMPLATE_FIELDS names (core/templates/template-schema.ts), nothing of a send's audience or delivery. */
export const TEMPLATE_SECTIONS: FormSection[] = [
  { legend: 'Message', fields: MESSAGE_FIELDS },
  { legend: 'On iOS', fields: IOS_SHOWN_FIELDS },
  { legend: 'More iOS options', fields: IOS_MORE_FIELDS, folded: true },
  { legend: 'Android', fields: ANDROID_FIELDS },
];

/** The REST body the form stands for (empty inputs are left out, as a caller would). */
export function bodyFromForm(sections: FormSection[], form: FormValues, base: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = { ...base };
  const ctx: BodyContext = { fromTemplate: !!form.template_id };
  if (ctx.fromTemplate) body.template_id = form.template_id;
  for (const field of fieldsOf(sections)) field.toBody(form, body, ctx);
  return body;
}

/** The area an issue is shown in: its body field's row, or the top of the form (the body as a whole). */
export function areaOf(sections: FormSection[], field: string): string {
  const first = /^[^.[]*/.exec(field)![0];
  return fieldsOf(sections).find((f) => f.body.includes(first))?.area ?? 'form';
}

export function errorsByArea(sections: FormSection[], issues: FieldIssue[]): Map<string, string[]> {
  const errors = new Map<string, string[]>();
  for (const { field, message } of issues) {
    const area = areaOf(sections, field);
    errors.set(area, [...(errors.get(area) ?? []), message]);
  }
  return errors;
}

/** The form's own inputs that hold a value, for the review step's hidden inputs. */
export function keptFields(sections: FormSection[], form: FormValues): [string, string][] {
  const fields = fieldsOf(sections);
  return Object.entries(form).filter(([k, v]) => v !== '' && (k === 'template_id' || fields.some((f) => f.inputs.test(k))));
}

/** The form a body's fields fill (a template's content). */
export function formFromContent(sections: FormSection[], content: Record<string, unknown>): FormValues {
  const form: FormValues = {};
  for (const field of fieldsOf(sections)) field.fromBody?.(content, form);
  return form;
}

/** The fieldsets of a form, each field drawn with its sentences. */
export function formSections(sections: FormSection[], form: FormValues, ctx: RenderContext): Html {
  return html`${sections.map((s) => {
    const inner = s.fields.map((f) => f.render(form, ctx));
    const open = s.fields.some((f) => ctx.errors.has(f.area) || [...Object.keys(form)].some((k) => form[k] && f.inputs.test(k)));
    return s.folded
      ? html`<details class="fieldset" ${open ? html`open` : ''}><summary>${s.legend}</summary><fieldset><legend class="visually-hidden">${s.legend}</legend>${inner}</fieldset></details>`
      : html`<fieldset><legend>${s.legend}</legend>${inner}</fieldset>`;
  })}`;
}
