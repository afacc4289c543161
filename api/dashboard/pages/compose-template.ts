// Compose started from a template (issue 30 point 6): the form's fields filled from the template's
// content, and the template's id carried with the form, so the send names it as a REST call does
// and core/templates/apply-template.ts (the one rule) fills in what the form does not show (data,
// buttons, category, …) when the send is accepted. Unchanged, the form sends exactly the
// template's content.
import type { Template } from '../../../core/templates/template-store.js';
import type { ComposeForm } from './compose.js';
import { languagesOf } from './message.js';

/** The template fields compose has an input for; the others travel by template_id alone. */
const SHOWN: Record<string, keyof ComposeForm | null> = {
  contents: null,
  headings: null,
  subtitle: null,
  url: 'url',
  app_url: 'url',
  ios_sound: 'ios_sound',
  ios_badgeType: 'ios_badgeType',
  ios_badgeCount: 'ios_badgeCount',
  ios_interruption_level: 'ios_interruption_level',
};

const texts = (value: unknown): Record<string, string> =>
  typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};

/** The form a template fills: a language row for each of its languages, the default first. */
export function formFromTemplate(t: Template): ComposeForm {
  const c = t.content;
  const maps = { contents: texts(c.contents), headings: texts(c.headings), subtitle: texts(c.subtitle) };
  const form: ComposeForm = { template_id: t.id };
  languagesOf(maps).forEach((lang, i) => {
    form[`lang_${i}`] = lang;
    if (maps.contents[lang] !== undefined) form[`content_${i}`] = maps.contents[lang];
    if (maps.headings[lang] !== undefined) form[`heading_${i}`] = maps.headings[lang];
    if (maps.subtitle[lang] !== undefined) form[`subtitle_${i}`] = maps.subtitle[lang];
  });
  for (const [field, input] of Object.entries(SHOWN)) {
    const value = c[field as keyof typeof c];
    if (input && (typeof value === 'string' || typeof value === 'number')) form[input] = String(value);
  }
  return form;
}

/** The template's fields that compose shows no input for (named as the REST body names them). */
export const fieldsNotShown = (t: Template): string[] => Object.keys(t.content).filter((f) => !Object.hasOwn(SHOWN, f));
