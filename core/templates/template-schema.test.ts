// A template body's shape through the one checker, with the sentences the template calls gave
// before it (docs/api.md "Templates"): null is as absent for every field, the name at its edges,
// the channels Herald does not serve, a send's fields a template does not carry.
import { expect } from 'chai';
import { ValidationError } from '../errors.js';
import { checkValue } from '../validation/checker.js';
import { CREATE_TEMPLATE_BODY, readTemplateBody, TEMPLATE_SENTENCES } from './template-schema.js';
import { TEMPLATE_LIMITS } from './template-limits.js';

const rules = { app: { id: '11111111-1111-4111-8111-111111111111', bundleId: 'com.example', segmentNames: [] }, now: new Date() };
const NOT_A_FIELD = (field: string) => `${field} is not a field of a template: a template holds a message's content, a send its audience and delivery (docs/api.md "Templates").`;
const NAME_REQUIRED = "name is required: the template's name.";
const NAME_TEXT = 'name must be text of at least one character.';

function said(kind: 'create' | 'update', body: unknown): string[] {
  try {
    readTemplateBody(kind, body, rules, { contents: { en: 'stored' } });
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.messages;
  }
}

describe('template bodies', () => {
  const x = { contents: { en: 'x' } };
  const cases: [string, 'create' | 'update', unknown, string[]][] = [
    ['kept', 'create', { name: 'a', ...x }, []],
    ['no name', 'create', x, [NAME_REQUIRED]],
    ['a null name, as absent', 'create', { name: null, ...x }, [NAME_REQUIRED]],
    ['a null name keeps the name', 'update', { name: null }, []],
    ['an empty name', 'update', { name: '' }, [NAME_TEXT]],
    ['a name of spaces', 'create', { name: ' \u00a0\t', ...x }, [NAME_TEXT]],
    ['a name not text', 'create', { name: 5, ...x }, [NAME_TEXT]],
    ['the longest name, in code points', 'create', { name: '😀'.repeat(TEMPLATE_LIMITS.name), ...x }, []],
    ['a name too long', 'update', { name: 'n'.repeat(TEMPLATE_LIMITS.name + 1) }, [`name is longer than ${TEMPLATE_LIMITS.name} characters.`]],
    ['an email template', 'create', { name: 'a', ...x, isEmail: true, is_sms: true }, ['isEmail is not served: Herald keeps push templates only.', 'is_sms is not served: Herald keeps push templates only.']],
    ['the channels said false or null', 'create', { name: 'a', ...x, isEmail: false, isSMS: null }, []],
    ["a send's fields, in the send body's order", 'create', { name: 'a', ...x, ttl: 60, included_segments: ['a'] }, [NOT_A_FIELD('included_segments'), NOT_A_FIELD('ttl')]],
    ["a send's field given null, as absent", 'update', { priority: null }, []],
    ['a field of no send, left alone', 'create', { name: 'a', ...x, colour: 'red' }, []],
    ['every rule at once, the name first', 'create', { name: null, isEmail: true, ttl: 1 }, [NAME_REQUIRED, 'isEmail is not served: Herald keeps push templates only.', NOT_A_FIELD('ttl')]],
  ];
  for (const [what, kind, body, sentences] of cases) {
    it(`${kind}, ${what}: ${sentences.length ? sentences.join(' ') : 'kept'}`, () => {
      expect(said(kind, body)).to.deep.equal(sentences);
    });
  }

  it("checks the content by the send's rules only once the shape is kept", () => {
    expect(said('create', { name: 'a', contents: {} })).to.have.length.above(0);
    expect(said('create', { name: 5, contents: {} })).to.deep.equal([NAME_TEXT]);
  });

  it("the REST call's body names its app: missing or null, the send's sentence", () => {
    for (const app_id of [undefined, null]) {
      const result = checkValue(CREATE_TEMPLATE_BODY, { app_id, name: 'a', ...x }, TEMPLATE_SENTENCES);
      expect(result.ok ? [] : result.issues.map((i) => i.message)).to.deep.equal(["app_id is required: the App ID of the key's app."]);
    }
  });

  it("an update's null removes a field of the stored content; the others stay", () => {
    const read = readTemplateBody('update', { headings: null, subtitle: { en: 's' } }, rules, { contents: { en: 'x' }, headings: { en: 'h' } });
    expect(read).to.deep.equal({ content: { contents: { en: 'x' }, subtitle: { en: 's' } } });
  });
});
