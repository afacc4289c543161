// The compose form: the REST body it stands for, and which field each validation sentence goes to.
import { expect } from 'chai';
import { bodyFromForm, fieldOf } from './compose.js';

describe('dashboard compose', () => {
  const app = '5b0b6f2e-0f55-4c3c-9d0b-1f0a0e6f6c11';

  it('builds the REST body: languages, the chosen target only, send_after as UTC, throttle as a number', () => {
    const body = bodyFromForm({
      lang_0: 'en', content_0: 'Hello', heading_0: 'Shop', lang_1: 'fr', content_1: 'Bonjour', lang_2: '', content_2: 'ignored',
      target: 'external_ids', ids: 'u1, u2\nu3', segment: 'Subscribed Users', send_after: '2026-11-30T09:00', throttle: '600',
    }, app);
    expect(body).to.deep.equal({
      app_id: app, contents: { en: 'Hello', fr: 'Bonjour' }, headings: { en: 'Shop' },
      include_external_ids: ['u1', 'u2', 'u3'], send_after: '2026-11-30T09:00Z', throttle_rate_per_minute: 600,
    });
  });

  it('passes a non-number throttle through, so the REST rule and message apply', () => {
    expect(bodyFromForm({ target: 'segment', segment: 'All', throttle: 'abc' }, app)).to.include({ throttle_rate_per_minute: 'abc' });
  });

  it('builds a tag target, leaving out an empty value', () => {
    expect(bodyFromForm({ target: 'tag', tag_key: 'plan', tag_relation: 'exists', tag_value: '' }, app).tag).to.deep.equal({ key: 'plan', relation: 'exists' });
  });

  it('puts each sentence under the field it names', () => {
    expect(fieldOf('contents needs the message text in at least one language.')).to.equal('contents');
    expect(fieldOf('send_after is more than 30 days ahead.')).to.equal('send_after');
    expect(fieldOf('throttle_rate_per_minute is a whole number from 1 to 100000.')).to.equal('throttle');
    expect(fieldOf('included_segments names a segment this app does not have: Nobody.')).to.equal('audience');
    expect(fieldOf('Something else entirely.')).to.equal('form');
  });
});
