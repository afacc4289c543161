import { expect } from 'chai';
import Type from 'typebox';
import { ValidationError } from '../errors.js';
import { BODY_NOT_OBJECT, MAX_ISSUES, checkValue, checked, fieldPath } from './checker.js';

const Body = Type.Object({
  name: Type.String({ maxLength: 8 }),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
  filters: Type.Optional(Type.Array(Type.Object({ key: Type.String(), value: Type.Optional(Type.String({ maxLength: 3 })) }), { maxItems: 2 })),
  kind: Type.Optional(Type.Union([Type.Literal('a'), Type.Literal('b')])),
});

describe('the one body checker', () => {
  it('gives the typed value of a body that keeps every rule', () => {
    const body = checked(Body, { name: 'n', count: 500, filters: [{ key: 'k', value: 'abc' }] });
    expect(body.name).to.equal('n');
    expect(body.count).to.equal(500);
  });

  it('a body failing two rules reports both fields, each by its path in one format', () => {
    const result = checkValue(Body, { name: 123, filters: [{ key: 'k' }, { key: 'k', value: 'abcd' }] });
    expect(result.ok).to.equal(false);
    if (result.ok) return;
    expect(result.issues).to.deep.equal([
      { field: 'name', message: 'name must be text.' },
      { field: 'filters[1].value', message: 'filters[1].value is at most 3 characters.' },
    ]);
  });

  it('throws one 422 with every sentence', () => {
    let thrown: unknown;
    try {
      checked(Body, { count: 0 });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(ValidationError);
    expect((thrown as ValidationError).status).to.equal(422);
    expect((thrown as ValidationError).messages).to.deep.equal(['name is required.', 'count is at least 1.']);
  });

  it('tests the edges of a range: 500 kept, 501 refused; 2 entries kept, 3 refused', () => {
    expect(checkValue(Body, { name: 'n', count: 501 }).ok).to.equal(false);
    expect(checkValue(Body, { name: 'n', filters: [{ key: 'a' }, { key: 'b' }] }).ok).to.equal(true);
    const three = checkValue(Body, { name: 'n', filters: [{ key: 'a' }, { key: 'b' }, { key: 'c' }] });
    expect(three.ok ? [] : three.issues).to.deep.equal([{ field: 'filters', message: 'filters has at most 2 entries.' }]);
  });

  it("uses the call's own sentence: exact path, any index, then the top-level field", () => {
    const sentences = { name: 'name is the display name, text.', 'filters[].value': 'a filter value is 3 characters at most.', kind: 'kind is a or b.' };
    const result = checkValue(Body, { name: 1, kind: 'c', filters: [{ key: 'k', value: 'long' }] }, sentences);
    expect(result.ok ? [] : result.issues.map((i) => i.message)).to.deep.equal([
      'name is the display name, text.',
      'a filter value is 3 characters at most.',
      'kind is a or b.',
    ]);
  });

  it("uses a sentence for the broken keyword before the field's own, and `*:keyword` for any field, naming it", () => {
    const Strict = Type.Object({ name: Type.String({ minLength: 1, maxLength: 8 }) }, { additionalProperties: false });
    const sentences = { 'name:maxLength': 'name is longer than 8 characters.', name: 'name is text.', '*:additionalProperties': (field: string) => `${field} is not kept here.` };
    const said = (body: unknown) => {
      const result = checkValue(Strict, body, sentences);
      return result.ok ? [] : result.issues.map((i) => i.message);
    };
    expect(said({ name: 'n'.repeat(9) })).to.deep.equal(['name is longer than 8 characters.']);
    expect(said({ name: '' })).to.deep.equal(['name is text.']);
    expect(said({ name: 'n', colour: 'red' })).to.deep.equal(['colour is not kept here.']);
    expect(said({})).to.deep.equal(['name is text.']);
  });

  it('words a sentence from the broken rule and the value given, and `*` speaks for fields the table does not name', () => {
    const Closed = Type.Object({ name: Type.String({ maxLength: 8 }), kind: Type.Optional(Type.Union([Type.Literal('a'), Type.Literal('b')])) }, { additionalProperties: false });
    const sentences = {
      name: (_path: string, error: { keyword: string; data?: unknown }) => (error.keyword === 'maxLength' ? `name is ${String(error.data).length} characters, 8 at most.` : undefined),
      '*': (path: string) => `${path} is not a field of this test.`,
    };
    const long = checkValue(Closed, { name: 'x'.repeat(9), extra: 1 }, sentences);
    expect(long.ok ? [] : long.issues).to.deep.equal([
      { field: 'extra', message: 'extra is not a field of this test.' },
      { field: 'name', message: 'name is 9 characters, 8 at most.' },
    ]);
    // undefined leaves the default sentence; `*` is only a last resort, after the field's own entry.
    const typed = checkValue(Closed, { name: 1 }, sentences);
    expect(typed.ok ? [] : typed.issues).to.deep.equal([{ field: 'name', message: 'name must be text.' }]);
  });

  it('uses a keyword\'s own sentence before the field\'s: a missing field says otherwise than a wrong one', () => {
    const sentences = { name: 'name is the display name, text.', 'name:required': 'name is required: the display name.' };
    const missing = checkValue(Body, {}, sentences);
    const wrong = checkValue(Body, { name: 1 }, sentences);
    expect(missing.ok ? [] : missing.issues.map((i) => i.message)).to.deep.equal(['name is required: the display name.']);
    expect(wrong.ok ? [] : wrong.issues.map((i) => i.message)).to.deep.equal(['name is the display name, text.']);
  });

  it('writes the field\'s path where a sentence says {field}, and *:keyword speaks for that keyword at any other field', () => {
    const Closed = Type.Object({ name: Type.String(), inner: Type.Optional(Type.Object({ a: Type.String() }, { additionalProperties: false })) }, { additionalProperties: false });
    const sentences = { '*:additionalProperties': '{field} is not kept here.', name: 'name is text.' };
    const result = checkValue(Closed, { name: 1, extra: 1, inner: { a: 'a', b: 2 } }, sentences);
    expect(result.ok ? [] : result.issues.map((i) => i.message).sort()).to.deep.equal(['extra is not kept here.', 'inner.b is not kept here.', 'name is text.']);
    const long = checkValue(Body, { name: 'n', filters: [{ key: 'k', value: 'long' }] }, { 'filters:maxLength': '{field} is longer than 3 characters.' });
    expect(long.ok ? [] : long.issues.map((i) => i.message)).to.deep.equal(['filters[0].value is longer than 3 characters.']);
  });

  it(`names at most ${MAX_ISSUES} fields: a body of many broken ones gets a short answer`, () => {
    const Tags = Type.Object({ tags: Type.Record(Type.String(), Type.String()) });
    const result = checkValue(Tags, { tags: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i])) });
    expect(result.ok ? [] : result.issues.map((i) => i.field)).to.deep.equal(Array.from({ length: MAX_ISSUES }, (_, i) => `tags.k${i}`));
  });

  it("says a union's allowed values once, not each branch's", () => {
    const result = checkValue(Body, { name: 'n', kind: 'c' });
    expect(result.ok ? [] : result.issues).to.deep.equal([{ field: 'kind', message: 'kind is one of "a", "b".' }]);
  });

  it('says the body is not an object with the contract sentence', () => {
    const result = checkValue(Body, [1, 2]);
    expect(result.ok ? [] : result.issues).to.deep.equal([{ field: '', message: BODY_NOT_OBJECT }]);
  });

  it('writes paths as a.b[0].c, JSON pointer escapes undone', () => {
    expect(fieldPath({ instancePath: '/a/b/0/c', keyword: 'type', params: {} })).to.equal('a.b[0].c');
    expect(fieldPath({ instancePath: '/tags/x~1y', keyword: 'type', params: {} })).to.equal('tags.x/y');
    expect(fieldPath({ instancePath: '/buttons/2', keyword: 'required', params: { missingProperty: 'id' } })).to.equal('buttons[2].id');
    expect(fieldPath({ instancePath: '', keyword: 'required', params: { missingProperty: 'contents' } })).to.equal('contents');
  });

  it('compiles a schema once: the same schema object checks many bodies', () => {
    for (let i = 0; i < 1000; i++) expect(checkValue(Body, { name: String(i % 10) }).ok).to.equal(true);
  });
});
