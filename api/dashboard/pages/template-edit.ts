// The template editor (issue 40 point 3): a new template's form and a template's, every field
// createTemplate and updateTemplate take (core/templates/template-schema.ts TEMPLATE_FIELDS, drawn
// by the rows of ../form/forms.ts TEMPLATE_SECTIONS), each refusal the REST call's sentence beside
// its field, the lock-screen preview kept live by dashboard.js; and the question before a delete.
import type { FieldIssue } from '../../../core/errors.js';
import { TEMPLATE_LIMITS } from '../../../core/templates/template-limits.js';
import type { Template } from '../../../core/templates/template-store.js';
import { errorList, invalidWhen } from '../errors.js';
import { errorsByArea, formSections, TEMPLATE_SECTIONS } from '../form/forms.js';
import type { FormValues } from '../form/form-field.js';
import { html, type Html } from '../html.js';
import { previews } from './previews.js';

/** The form of a new template (`template` absent) or of a template, as posted or filled from it. */
export function templateFormPage(o: { csrf: string; appName: string; form: FormValues; template?: Template; issues?: FieldIssue[] }): Html {
  const issues = o.issues ?? [];
  const nameIssues = issues.filter((i) => i.field === 'name').map((i) => i.message);
  const errors = errorsByArea(TEMPLATE_SECTIONS, issues.filter((i) => i.field !== 'name'));
  const action = o.template ? `/dashboard/templates/${o.template.id}/edit` : '/dashboard/templates/new';
  return html`<p><a href="${o.template ? `/dashboard/templates/${o.template.id}` : '/dashboard/templates'}">← ${o.template ? o.template.name : 'Templates'}</a></p>
  <h1>${o.template ? `Edit ${o.template.name}` : 'New template'}</h1>
  <div class="compose-layout">
  <form method="post" action="${action}" class="compose template-form" novalidate>
    <input type="hidden" name="_csrf" value="${o.csrf}">
    ${errorList('form', errors.get('form'))}
    <label>Template name <input name="template_name" value="${o.form.template_name ?? ''}" maxlength="${TEMPLATE_LIMITS.name}" ${invalidWhen('template_name', nameIssues.length > 0)}></label>
    ${errorList('template_name', nameIssues)}
    ${formSections(TEMPLATE_SECTIONS, o.form, { errors, segments: [] })}
    <p class="note">A template holds a message and how it shows; a send names it by <code>template_id</code> and chooses its audience and delivery, its own fields first.</p>
    <button type="submit">${o.template ? 'Save the template' : 'Create the template'}</button>
  </form>
  ${previews(o.appName, o.form)}
  </div>`;
}

export function deleteTemplatePage(csrf: string, t: Template): Html {
  return html`<h1>Delete template ${t.name}?</h1>
  <p>It goes for good. Sends already made from it keep what they sent (their report names its id, deleted since); a send naming it afterwards is refused.</p>
  <form method="post" action="/dashboard/templates/${t.id}/delete" class="confirm">
    <input type="hidden" name="_csrf" value="${csrf}">
    <button type="submit" class="danger">Yes, delete ${t.name}</button>
    <a class="button secondary" href="/dashboard/templates/${t.id}">No, keep it</a>
  </form>`;
}
