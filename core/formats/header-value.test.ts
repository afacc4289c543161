// The HTTP/2 header value rule at its edges: what the api accepts for a header (collapse_id) and
// what the transport frames are this one check.
import { expect } from 'chai';
import { isHeaderValue } from './header-value.js';

describe('core/formats/header-value', () => {
  it('accepts the empty value, one visible character, inner spaces and every visible ASCII byte', () => {
    for (const v of ['', 'a', '~', 'a b', 'promo 1!', 'x  y', Array.from({ length: 94 }, (_, i) => String.fromCharCode(0x21 + i)).join('')]) {
      expect(isHeaderValue(v), JSON.stringify(v)).to.equal(true);
    }
  });

  it('refuses a space at either end, only spaces, a control byte, DEL and anything past ASCII', () => {
    for (const v of [' ', '  ', ' a', 'a ', ' a ', 'a\tb', '\ta', 'a\r\nb', 'a\0b', 'a\x7fb', 'café', 'a\u2028b']) {
      expect(isHeaderValue(v), JSON.stringify(v)).to.equal(false);
    }
  });

  it('reads a long value ending in spaces in linear time (anchored, one backtrack)', () => {
    expect(isHeaderValue(`a${' '.repeat(100_000)}`)).to.equal(false);
    expect(isHeaderValue(`a${' '.repeat(100_000)}b`)).to.equal(true);
  });
});
