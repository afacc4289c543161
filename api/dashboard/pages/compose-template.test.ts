// Compose started from a template: the form a template fills (a row per language, the default
// first, as many rows as it has, up to the languages' limit) stands for a body that, once the
// template is applied (the accept path's rule), is the template's content.
import { expect } from 'chai';
import type { Template } from '../../../core/templates/template-store.js';
import { LIMITS } from '../../../core/validation/limits.js';
import { fieldsNotShown, formFromTemplate } from './compose-template.js';
import { bodyFromForm as bodyOf, COMPOSE_SECTIONS } from '../form/forms.js';
import { langRows } from '../form/message-fields.js';
import { fieldsOf, type FormValues } from '../form/form-field.js';
import { TEMPLATE_SECTIONS } from '../form/forms.js';
import { TEMPLATE_FIELDS } from '../../../core/templates/template-schema.js';

const bodyFromForm = (form: FormValues, appId: string) => bodyOf(COMPOSE_SECTIONS, form, { app_id: appId });

const APP = '5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11';
const template = (content: Template['content']): Template => ({ id: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', appId: APP, name: 'T', content, createdAt: '', updatedAt: '' });

describe('dashboard compose from a template', () => {
  it('fills a row per language, the default first, and the fields compose shows; names the others', () => {
    const t = template({
      contents: { fr: 'Bonjour', de: 'Hallo', en: 'Hello', es: 'Hola', it: 'Ciao' }, headings: { en: 'Hi', ja: 'やあ' }, subtitle: { de: 'Sub' },
      app_url: 'https://example.com/a', ios_badgeType: 'SetTo', ios_badgeCount: 3, data: { k: 'v' }, buttons: [{ id: 'b', text: 'B' }],
    });
    const form = formFromTemplate(t);
    expect(langRows(form)).to.have.length(6);
    expect([0, 1, 2, 3, 4, 5].map((i) => form[`lang_${i}`])).to.deep.equal(['en', 'fr', 'de', 'es', 'it', 'ja']);
    expect(form).to.include({ content_0: 'Hello', heading_0: 'Hi', subtitle_2: 'Sub', heading_5: 'やあ', url: 'https://example.com/a', ios_badgeType: 'SetTo', ios_badgeCount: '3', template_id: t.id });
    expect(form).to.not.have.property('content_5');
    // Compose has an input for every field a template may carry.
    expect(form).to.include({ data_key_0: 'k', data_value_0: 'v', button_id: 'b', button_text: 'B' });
    expect(fieldsNotShown(t)).to.deep.equal([]);
    // The body it stands for: the texts whole, the template named; filled by apply-template, the template's content.
    const body = bodyFromForm({ ...form, target: 'segment', segment: 'All' }, APP);
    expect(body).to.deep.include({ template_id: t.id, contents: t.content.contents, headings: t.content.headings, subtitle: t.content.subtitle, ios_badgeType: 'SetTo', ios_badgeCount: 3 });
  });

  it('compose and the template editor have an input for every field a template carries (TEMPLATE_FIELDS), Android and the platform flags included', () => {
    for (const sections of [COMPOSE_SECTIONS, TEMPLATE_SECTIONS]) {
      const shown = new Set(fieldsOf(sections).flatMap((f) => f.body));
      expect(TEMPLATE_FIELDS.filter((f) => !shown.has(f))).to.deep.equal([]);
    }
    const android = { android_channel_id: 'n', existing_android_channel_id: 'e', small_icon: 'i', android_accent_color: 'FF0099CC', android_sound: 's', android_group: 'g' };
    for (const [flags, platforms] of [[{ isIos: false }, 'android'], [{ isAndroid: false }, 'ios'], [{}, undefined]] as const) {
      const t = template({ contents: { en: 'x' }, ...android, ...flags });
      const form = formFromTemplate(t);
      expect(form).to.include(android);
      expect(form.platforms).to.equal(platforms);
      expect(fieldsNotShown(t)).to.deep.equal([]);
      // From a template both flags go, so the choice shown replaces the template's.
      const body = bodyFromForm({ ...form, target: 'segment', segment: 'All' }, APP);
      expect(body).to.deep.include({ ...android, isIos: platforms !== 'android', isAndroid: platforms !== 'ios' });
    }
  });

  it(`shows three rows at least and at most ${LIMITS.languages} (the languages' limit): a row past it is not read`, () => {
    expect(langRows({})).to.have.length(3);
    expect(langRows({ [`lang_${LIMITS.languages - 1}`]: 'en' })).to.have.length(LIMITS.languages);
    expect(langRows({ [`lang_${LIMITS.languages}`]: 'en' })).to.have.length(3);
    expect(bodyFromForm({ [`lang_${LIMITS.languages}`]: 'en', [`content_${LIMITS.languages}`]: 'x' }, APP).contents).to.deep.equal({});
  });
});
