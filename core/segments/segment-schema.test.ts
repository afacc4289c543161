// The segment bodies' sentences through the one checker: the ones docs/api.md "Segments" and the
// calls gave before the checker, kept field by field and keyword by keyword.
import { expect } from 'chai';
import { ValidationError } from '../errors.js';
import { readSegmentBody } from './segment-schema.js';
import { SEGMENT_LIMITS } from './segment-limits.js';

const tag = { field: 'tag', key: 'a', relation: 'exists' };

function said(which: 'create' | 'update', body: unknown): string[] {
  try {
    readSegmentBody(which, body);
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.messages;
  }
}

describe('segment bodies', () => {
  const cases: [string, unknown, string[]][] = [
    ['kept', { name: 'a', filters: [tag] }, []],
    ['no name', { filters: [tag] }, ['name is required.']],
    ['an empty name', { name: '', filters: [tag] }, ['name is empty.']],
    ['a name too long', { name: 'n'.repeat(SEGMENT_LIMITS.name + 1), filters: [tag] }, [`name is longer than ${SEGMENT_LIMITS.name} characters.`]],
    ['a name not text', { name: 5, filters: [tag] }, ['name must be of type string.']],
    ['no filters entry', { name: 'a', filters: [] }, [`filters holds 1 to ${SEGMENT_LIMITS.filter_entries} entries.`]],
    ['filters not a list', { name: 'a', filters: 'x' }, ['filters must be of type array.']],
    ['an entry not an object', { name: 'a', filters: [tag, 1] }, ['filters[1] must be an object.']],
    ['an id not a UUID', { id: 'nope', name: 'a', filters: [tag] }, ['id must be a UUID.']],
    ['an id not text', { id: 5, name: 'a', filters: [tag] }, ['id must be of type string.']],
    ['a field it does not keep', { name: 'a', filters: [tag], description: 'x' }, ['description is not a field of a segment Herald keeps (docs/api.md "Segments").']],
    ['an entry the send refuses', { name: 'a', filters: [{ field: 'tag', key: 'a', relation: '~', value: 'x' }] }, ['filters[0].relation must be one of =, !=, >, <, exists, not_exists.']],
  ];
  for (const [what, body, sentences] of cases) {
    it(`createSegment, ${what}: ${sentences.length ? sentences.join(' ') : 'kept'}`, () => {
      expect(said('create', body)).to.deep.equal(sentences);
    });
  }

  it('a body breaking several rules says each', () => {
    expect(said('update', { name: '', filters: [], colour: 1 })).to.deep.equal([
      'colour is not a field of a segment Herald keeps (docs/api.md "Segments").',
      'name is empty.',
      `filters holds 1 to ${SEGMENT_LIMITS.filter_entries} entries.`,
    ]);
  });

  it('reads the id in lower case and the filters as their groups; an update without filters keeps them', () => {
    const read = readSegmentBody('create', { id: 'A1B2C3D4-0000-4000-8000-00000000000F', name: 'a', filters: [tag] });
    expect(read.id).to.equal('a1b2c3d4-0000-4000-8000-00000000000f');
    expect(read.groups).to.have.length(1);
    expect(readSegmentBody('update', { name: 'b' })).to.deep.equal({ id: undefined, name: 'b' });
  });
});
