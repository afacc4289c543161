import { expect } from 'chai';
import Type from 'typebox';
import { checkValue } from '../../core/validation/checker.js';
import { queryValues } from './query-values.js';

const Page = Type.Object({ offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })), q: Type.Optional(Type.String()) });

describe('query values', () => {
  it('reads an integer parameter written in digits as its number; other parameters stay text', () => {
    expect(queryValues(Page, { offset: '0012', q: '12', other: '3' })).to.deep.equal({ offset: 12, q: '12', other: '3' });
  });

  it('leaves anything but digits as text, so the schema refuses it', () => {
    for (const offset of ['-1', '+1', '1.5', ' 1', '', 'x', ['1', '2']]) {
      const values = queryValues(Page, { offset });
      expect(values.offset, JSON.stringify(offset)).to.deep.equal(offset);
      expect(checkValue(Page, values).ok, JSON.stringify(offset)).to.equal(false);
    }
  });

  it('keeps the range to the schema: 1000 kept, 1001 refused', () => {
    expect(checkValue(Page, queryValues(Page, { offset: '1000' })).ok).to.equal(true);
    expect(checkValue(Page, queryValues(Page, { offset: '1001' })).ok).to.equal(false);
  });
});
