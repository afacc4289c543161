// Compose started from a template (issue 30 point 6): the form's fields filled from the template's
// content by compose's own rows (../form/forms.ts), and the template's id carried with the form,
// so the send names it as a REST call does and core/templates/apply-template.ts (the one rule)
// fills in whatever the form holds no input for when the send is accepted. Unchanged, the form
// sends exactly the template's content.
import type { Template } from '../../../core/templates/template-store.js';
import { COMPOSE_SECTIONS, formFromContent } from '../form/forms.js';
import { fieldsOf, type FormValues } from '../form/form-field.js';

/** The form a template fills: a language row for each of its languages, the default first. */
export function formFromTemplate(t: Template): FormValues {
  return { ...formFromContent(COMPOSE_SECTIONS, t.content), template_id: t.id };
}

/** The template's fields that compose shows no input for (named as the REST body names them). */
export const fieldsNotShown = (t: Template): string[] => {
  const shown = new Set(fieldsOf(COMPOSE_SECTIONS).flatMap((f) => f.body));
  return Object.keys(t.content).filter((f) => !shown.has(f));
};
