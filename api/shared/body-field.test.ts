import { expect } from 'chai';
import { bodyField, bodyObject } from './body-field.js';

describe('bodyField', () => {
  it("reads a body's own field", () => {
    expect(bodyField({ _csrf: 't', app_id: 'a' }, '_csrf')).to.equal('t');
    expect(bodyField({ confirm: 'yes' }, 'confirm')).to.equal('yes');
  });

  it('never one from a prototype, and nothing from a body that is no object', () => {
    expect(bodyField(Object.create({ key: 'inherited' }), 'key')).to.equal(undefined);
    expect(bodyField({}, 'constructor')).to.equal(undefined);
    for (const body of [undefined, null, 'text', 42]) expect(bodyField(body, 'key')).to.equal(undefined);
  });
});

describe('bodyObject', () => {
  it('is the body when it is an object, else an empty one', () => {
    const body = { included_segments: ['All'] };
    expect(bodyObject(body)).to.equal(body);
    for (const none of [undefined, null, 'text', 42, [1, 2]]) expect(bodyObject(none)).to.deep.equal({});
  });
});
