// Attacks on the send body: each input is refused early with a 422 naming the field,
// before any work that grows with its size (docs/security.md "Bounded work per request").
import { expect } from 'chai';
import { problems, validate } from './helpers.test-support.js';

/** The cap on languages per map (send-content.ts MAX_LANGUAGES; docs/decisions.md). */
const MAX_LANGUAGES = 100;

/** `n` distinct made-up language codes (aa-AAAA, aa-AAAB, …), all of the accepted form. */
function languageCodes(n: number): string[] {
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  return Array.from({ length: n }, (_, i) => {
    let tag = '';
    for (let k = i, d = 0; d < 4; d++, k = Math.floor(k / 26)) tag = letters[k % 26] + tag;
    return `aa-${tag}`;
  });
}

describe('bounded send bodies', () => {
  it('refuses a send_after padded with 80,000 spaces by its length, before parsing', () => {
    const padded = '2026-11-24T14:00' + ' '.repeat(80_000) + '!';
    expect(problems(() => validate({ send_after: padded }))).to.deep.equal([
      'send_after is longer than 64 characters.',
    ]);
  });

  it('still reads a send_after of 64 characters', () => {
    const text = '2026-03-02T12:00:00Z'.padEnd(64, ' ');
    expect(validate({ send_after: text }).sendAfter?.toISOString()).to.equal('2026-03-02T12:00:00.000Z');
  });

  it('refuses 16,000 made-up languages in contents and headings with 250 data values, naming both maps', () => {
    const codes = languageCodes(16_000);
    const contents = Object.fromEntries(codes.map((c) => [c, 'x']));
    const headings = Object.fromEntries(codes.map((c) => [c, 'y']));
    const data = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`k${i}`, 'v'.repeat(2000)]));
    expect(problems(() => validate({ contents, headings, data }))).to.deep.equal([
      `contents has 16000 languages; at most ${MAX_LANGUAGES} are accepted.`,
      `headings has 16000 languages; at most ${MAX_LANGUAGES} are accepted.`,
    ]);
  });

  it(`accepts ${MAX_LANGUAGES} languages`, () => {
    const contents = Object.fromEntries(languageCodes(MAX_LANGUAGES).map((c) => [c, 'x']));
    expect(Object.keys(validate({ contents }).contents)).to.have.length(MAX_LANGUAGES);
  });

  it('quotes a bad language code cut to 40 characters, not whole', () => {
    const [message] = problems(() => validate({ contents: { ['x'.repeat(100_000)]: 'Hi' } }));
    expect(message).to.equal(
      `contents has "${'x'.repeat(40)}…", which is not a language code such as en, pt-BR or zh-Hans.`,
    );
  });

  it('refuses data with more than 1,000 entries (more cannot fit in 4 KB)', () => {
    const data = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, '']));
    expect(problems(() => validate({ data }))).to.deep.equal([
      'data holds at most 1000 entries; this request has 1001.',
    ]);
  });

  const longCases: Array<[string, Record<string, unknown>, string]> = [
    ['a tag key', { included_segments: undefined, tag: { key: 'k'.repeat(129), relation: 'exists' } }, 'tag.key is longer than 128 characters.'],
    ['a tag value', { included_segments: undefined, tag: { key: 'k', relation: '=', value: 'v'.repeat(129) } }, 'tag.value is longer than 128 characters.'],
    ['a filters value', { included_segments: undefined, filters: [{ field: 'tag', key: 'k', relation: '=', value: 'v'.repeat(129) }] }, 'filters[0].value is longer than 128 characters.'],
    ['a segment name', { included_segments: ['s'.repeat(100_000)] }, 'included_segments[0] is longer than 128 characters.'],
  ];
  for (const [name, changes, message] of longCases) {
    it(`refuses ${name} over 128 characters`, () => {
      expect(problems(() => validate(changes))).to.deep.equal([message]);
    });
  }

  it('quotes unknown include_aliases labels cut short', () => {
    const [message] = problems(() => validate({ included_segments: undefined, include_aliases: { ['l'.repeat(5000)]: ['a'] } }));
    expect(message.length).to.be.below(200);
  });
});
