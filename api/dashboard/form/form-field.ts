// The message forms of the dashboard (compose and the template editor, issue 40 points 3 and 4)
// are tables of fields: each field is one row saying where its issues are shown, which inputs it
// owns, how it is drawn, how it writes the REST body and how a body (a template's content) fills
// it. A form is a list of sections of such rows; the body it stands for, the placement of each
// REST sentence, the inputs Review carries over and the form a template fills all come from the
// same rows. A new field (Android's, say) is one more row in a section; nothing else changes.
import { ValidationError } from '../../../core/errors.js';
import { errorList, invalidWhen } from '../errors.js';
import { html, type Html } from '../html.js';

/** A form as posted: every value a string (a checkbox is "on" when ticked). */
export type FormValues = Record<string, string>;

export interface RenderContext {
  /** Sentences by area. */
  errors: Map<string, string[]>;
  /** The app's segment names (built-in first). */
  segments: string[];
}

export interface BodyContext {
  /** The form started from a template: its texts go whole, its link under both names. */
  fromTemplate: boolean;
}

export interface FormField {
  /** Where its issues are shown (the id of their list is `${area}-errors`). */
  area: string;
  /** The REST body fields whose issues it shows (an issue's field up to its first `.` or `[`). */
  body: readonly string[];
  /** The names of the inputs it owns. */
  inputs: RegExp;
  render(form: FormValues, ctx: RenderContext): Html;
  /** Writes its REST body fields from the form (an empty input writes nothing, as a caller would). */
  toBody(form: FormValues, body: Record<string, unknown>, ctx: BodyContext): void;
  /** Fills its inputs from a body's fields (a template's content). */
  fromBody?(content: Record<string, unknown>, form: FormValues): void;
}

export interface FormSection {
  legend: string;
  fields: FormField[];
  /** Folded under its legend until opened (fields a team sets seldom). */
  folded?: boolean;
}

export const fieldsOf = (sections: FormSection[]) => sections.flatMap((s) => s.fields);

/** The sentences of an area, announced, beside its inputs. */
export const errorsFor = (area: string, ctx: RenderContext) => errorList(area, ctx.errors.get(area));
/** The attributes of an input whose area has sentences. */
export const described = (area: string, ctx: RenderContext) => invalidWhen(area, ctx.errors.has(area));

/**
 * A text box that gives back the text it was given. The HTML parser drops a textarea's first line
 * break, so one is written before the value (a template's text starting with a line break keeps it).
 */
export const textArea = (name: string, value: string, maxlength: number, rows: number, extra: Html = html``) =>
  html`<textarea name="${name}" rows="${rows}" maxlength="${maxlength}" ${extra}>${'\n'}${value}</textarea>`;

/** A one-line input, or a textarea for a text holding a line break (an input's value loses its line breaks). */
export const textInput = (name: string, value: string, maxlength: number, extra: Html = html``) =>
  /[\r\n]/.test(value) ? textArea(name, value, maxlength, 2, extra) : html`<input name="${name}" value="${value}" maxlength="${maxlength}" ${extra}>`;

export const options = (choices: readonly (readonly [string, string])[], chosen: string) =>
  choices.map(([value, label]) => html`<option value="${value}" ${chosen === value ? html`selected` : ''}>${label}</option>`);

/**
 * A text as typed: a browser posts every line break of a form's value as CR LF (HTML's form
 * submission), so a template's "a\nb" came back "a\r\nb" and compose sent other text than the
 * template (and than a REST send naming it). CR LF and a lone CR are read as the LF typed.
 */
export const typed = (text: string | undefined) => text?.replace(/\r\n?/g, '\n');

/** A whole number as a number; anything else as given, so the REST rule and its sentence apply. */
export const integer = (text: string) => (/^-?\d{1,10}$/.test(text) ? Number(text) : text);
/** A decimal number as a number; anything else as given. */
export const decimal = (text: string) => (/^-?\d{1,10}(\.\d{1,10})?$/.test(text) ? Number(text) : text);

/** A JSON field typed in a textarea (filters, apns_alert), or the sentence naming it when it is not JSON. */
export function jsonField(field: string, text: string, example: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError({ field, message: `${field} is not JSON: write it as ${example}.` });
  }
}

/** A string field of the body, when the form has it. */
export function copyText(body: Record<string, unknown>, field: string, value: string | undefined): void {
  if (value) body[field] = value;
}
