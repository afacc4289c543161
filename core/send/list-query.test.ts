// The list filter from query parameters: defaults, OneSignal's kind numbers, bounds and the 400s.
import { expect } from 'chai';
import { parseListFilter } from './list-query.js';

describe('parseListFilter', () => {
  it('defaults to the first page of 50', () => {
    expect(parseListFilter({})).to.deep.equal({ limit: 50, offset: 0, from: undefined, to: undefined });
  });

  it("maps OneSignal's kind onto a source, and agrees with an equal source", () => {
    expect(parseListFilter({ kind: '0' }).source).to.equal('dashboard');
    expect(parseListFilter({ kind: '1' }).source).to.equal('api');
    expect(parseListFilter({ kind: '3', source: 'kubernetes' }).source).to.equal('kubernetes');
  });

  it('reads dates: a bare upper date includes that day', () => {
    const f = parseListFilter({ from: '2026-11-01', to: '2026-11-02' });
    expect(f.from!.toISOString()).to.equal('2026-11-01T00:00:00.000Z');
    expect(f.to!.toISOString()).to.equal('2026-11-03T00:00:00.000Z');
    expect(parseListFilter({ to: '2026-11-02T10:00:00Z' }).to!.toISOString()).to.equal('2026-11-02T10:00:00.000Z');
  });

  it('trims the search text and drops an empty one', () => {
    expect(parseListFilter({ q: '  sale ' }).search).to.equal('sale');
    expect(parseListFilter({ q: '   ' }).search).to.equal(undefined);
  });

  it('answers 400 naming the parameter for anything out of bounds', () => {
    const cases: [Record<string, string | string[]>, RegExp][] = [
      [{ limit: '51' }, /^limit must be a whole number from 0 to 50\.$/],
      [{ offset: '1000001' }, /^offset/],
      [{ limit: '1e3' }, /^limit/],
      [{ kind: '2' }, /^kind must be 0/],
      [{ source: 'email' }, /^source must be one of api, kubernetes, dashboard\.$/],
      [{ kind: '0', source: 'api' }, /^kind and source/],
      [{ status: 'sent' }, /^status must be one of/],
      [{ from: '2026-13-45' }, /^from must be a date/],
      [{ from: 'now' }, /^from must be a date/],
      [{ q: 'x'.repeat(201) }, /^q must be at most 200/],
      [{ limit: ['1', '2'] }, /^Give limit once\.$/],
    ];
    for (const [query, message] of cases) {
      expect(() => parseListFilter(query), JSON.stringify(query)).to.throw(message).with.property('status', 400);
    }
  });
});
