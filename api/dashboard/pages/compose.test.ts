// The compose form: the REST body it stands for, and which field each validation sentence goes to.
import { expect } from 'chai';
import type { ValidationError } from '../../../core/errors.js';
import { validateSendRequest } from '../../../core/validation/validate-send.js';
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

  it('reads the time in the chosen time zone, and leaves an unknown zone for the send_after rule to refuse', () => {
    expect(bodyFromForm({ target: 'segment', segment: 'All', send_after: '2026-11-30T09:00', send_tz: 'Europe/Paris' }, app).send_after).to.equal('2026-11-30T08:00:00.000Z');
    expect(bodyFromForm({ target: 'segment', segment: 'All', send_after: '2026-07-01T09:00', send_tz: 'America/New_York' }, app).send_after).to.equal('2026-07-01T13:00:00.000Z');
    expect(bodyFromForm({ target: 'segment', segment: 'All', send_after: '2026-11-30T09:00', send_tz: 'Mars/Base' }, app).send_after).to.equal('2026-11-30T09:00 Mars/Base');
  });

  it('passes an impossible local time in a zone on as written, so the REST rule refuses it as it does in UTC', () => {
    const now = new Date('2026-02-01T00:00:00Z');
    const refusal = (sendAfter: string) => {
      try {
        validateSendRequest({ body: { app_id: app, contents: { en: 'x' }, included_segments: ['All'], send_after: sendAfter }, app: { id: app, bundleId: 'com.example.shop', segmentNames: [] }, now });
      } catch (error) {
        return (error as ValidationError).messages.find((m) => fieldOf(m) === 'send_after');
      }
      return undefined;
    };
    for (const local of ['2026-02-30T10:00', '2026-02-10T24:00', '2026-02-10T99:00', '2026-02-10T10:60']) {
      const inParis = bodyFromForm({ target: 'segment', segment: 'All', send_after: local, send_tz: 'Europe/Paris' }, app).send_after as string;
      expect(inParis, local).to.equal(`${local} Europe/Paris`);
      const inUtc = bodyFromForm({ target: 'segment', segment: 'All', send_after: local, send_tz: 'UTC' }, app).send_after as string;
      expect(refusal(inParis), local).to.be.a('string').and.equal(refusal(inUtc));
    }
  });

  it("maps the iOS fields to OneSignal's wire names; a silent push may go without text", () => {
    const body = bodyFromForm({
      lang_0: 'en', content_0: 'Hi', subtitle_0: 'Sub', name: 'Promo', target: 'segment', segment: 'All', ios_sound: 'chime.caf',
      ios_badgeType: 'SetTo', ios_badgeCount: '3', ttl: '60', ios_interruption_level: 'time_sensitive',
    }, app);
    expect(body).to.include({ name: 'Promo', ios_sound: 'chime.caf', ios_badgeType: 'SetTo', ios_badgeCount: 3, ttl: 60, ios_interruption_level: 'time_sensitive' });
    expect(body.subtitle).to.deep.equal({ en: 'Sub' });
    expect(bodyFromForm({ lang_0: 'en', ios_badgeType: 'None', ios_badgeCount: '3', target: 'segment', segment: 'All' }, app)).to.not.have.any.keys('ios_badgeType', 'ios_badgeCount');
    const silent = bodyFromForm({ lang_0: 'en', content_0: '', content_available: 'on', target: 'segment', segment: 'All' }, app);
    expect(silent).to.include({ content_available: true }).and.not.have.property('contents');
    expect(bodyFromForm({ target: 'segment', segment: 'All', ttl: '1h' }, app)).to.include({ ttl: '1h' });
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
    expect(fieldOf('ios_badgeCount is required with ios_badgeType SetTo.')).to.equal('badge');
    expect(fieldOf('name is longer than 128 characters.')).to.equal('name');
  });
});
