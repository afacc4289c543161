import { expect } from 'chai';
import { parseSendAfter, sendAfterWindow } from './send-after.js';

describe('parseSendAfter', () => {
  const accepted: Array<[string, string, number, string]> = [
    // text, instant, offset minutes, clock
    ['2026-11-24T14:00:00-07:00', '2026-11-24T21:00:00.000Z', -420, '14:00'],
    ['2026-11-24T14:00:00Z', '2026-11-24T14:00:00.000Z', 0, '14:00'],
    ['2026-11-24T14:00:00.250+05:30', '2026-11-24T08:30:00.250Z', 330, '14:00'],
    ['2026-11-24T14:00-0700', '2026-11-24T21:00:00.000Z', -420, '14:00'],
    ['2026-11-24 14:00:00+02', '2026-11-24T12:00:00.000Z', 120, '14:00'],
    ['2015-09-24 14:00:00 GMT-0700', '2015-09-24T21:00:00.000Z', -420, '14:00'],
    ['2015-09-24 14:00:00 UTC', '2015-09-24T14:00:00.000Z', 0, '14:00'],
    ['Thu Sep 24 2015 14:00:00 GMT-0700 (PDT)', '2015-09-24T21:00:00.000Z', -420, '14:00'],
    [
      'Thu Sep 24 2015 14:00:00 GMT-0700 (Pacific Daylight Time)',
      '2015-09-24T21:00:00.000Z', -420, '14:00',
    ],
    ['Sept 24 2015 14:00:00 GMT-0700', '2015-09-24T21:00:00.000Z', -420, '14:00'],
    ['September 24, 2015 9:05:00 GMT+0100', '2015-09-24T08:05:00.000Z', 60, '09:05'],
  ];
  for (const [text, iso, offset, clock] of accepted) {
    it(`reads "${text}"`, () => {
      const parsed = parseSendAfter(text);
      expect(parsed, text).to.not.equal(undefined);
      expect(parsed!.date.toISOString()).to.equal(iso);
      expect(parsed!.offsetMinutes).to.equal(offset);
      expect(parsed!.hasOffset).to.equal(true);
      expect(parsed!.clock).to.equal(clock);
    });
  }

  it('reads a string with no offset as UTC, whatever the host zone', () => {
    for (const text of ['2026-11-24T14:00:00', '2026-11-24 14:00', 'Tue Nov 24 2026 14:00:00']) {
      const parsed = parseSendAfter(text);
      expect(parsed?.date.toISOString(), text).to.equal('2026-11-24T14:00:00.000Z');
      expect(parsed!.hasOffset).to.equal(false);
      expect(parsed!.offsetMinutes).to.equal(0);
    }
  });

  const refused = [
    '', 'tomorrow', 'now', '1443128400', '2026-11-24', '2026-13-01T00:00:00Z',
    '2026-02-30T10:00:00Z', '2026-11-24T24:00:00Z', '2026-11-24T14:60:00Z',
    '2026-11-24T14:00:00+15:00', 'Foo Sep 24 2015 14:00:00 GMT-0700', 'Smarch 24 2015 14:00:00',
    '2026-11-24T14:00:00 PDT',
  ];
  for (const text of refused) {
    it(`refuses "${text}"`, () => {
      expect(parseSendAfter(text)).to.equal(undefined);
    });
  }
});

describe('sendAfterWindow', () => {
  const now = new Date('2026-03-01T12:00:00.000Z');
  const at = (ms: number) => new Date(now.getTime() + ms);
  const DAY = 86_400_000;
  const cases: Array<[string, number, string]> = [
    ['61 s in the past', -61_000, 'past'],
    ['exactly 60 s in the past', -60_000, 'now'],
    ['5 s in the past', -5_000, 'now'],
    ['exactly now', 0, 'now'],
    ['1 s ahead', 1_000, 'at'],
    ['exactly 30 days ahead', 30 * DAY, 'at'],
    ['30 days and 1 ms ahead', 30 * DAY + 1, 'too_far'],
  ];
  for (const [name, offset, kind] of cases) {
    it(`${name} is ${kind}`, () => {
      expect(sendAfterWindow(at(offset), now).kind).to.equal(kind);
    });
  }
});
