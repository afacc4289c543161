import { expect } from 'chai';
import { knownTimeZone, nextClockTime, zonedInstant, zoneOffsetMinutes, zoneSpecFor } from './zone-clock.js';

const at = (iso: string) => new Date(iso);

describe('zoneOffsetMinutes', () => {
  // Europe/Paris 2026: CET (+60) → CEST (+120) on 29 March at 01:00Z; back on 25 October at 01:00Z.
  const cases: Array<[string, string, number]> = [
    ['Europe/Paris', '2026-03-29T00:59:59.999Z', 60],
    ['Europe/Paris', '2026-03-29T01:00:00.000Z', 120],
    ['Europe/Paris', '2026-10-25T00:59:59.999Z', 120],
    ['Europe/Paris', '2026-10-25T01:00:00.000Z', 60],
    ['America/New_York', '2026-11-21T12:00:00Z', -300],
    ['America/New_York', '2026-07-01T12:00:00Z', -240],
    ['Pacific/Auckland', '2026-11-21T12:00:00Z', 780],
    ['Pacific/Auckland', '2026-07-01T12:00:00Z', 720],
    ['Asia/Kolkata', '2026-11-21T12:00:00Z', 330],
    ['Asia/Kathmandu', '2026-11-21T12:00:00Z', 345],
    ['UTC', '2026-11-21T12:00:00Z', 0],
  ];
  for (const [zone, iso, offset] of cases) {
    it(`${zone} at ${iso} is ${offset} min`, () => {
      expect(zoneOffsetMinutes(zone, at(iso))).to.equal(offset);
    });
  }

  it('knows IANA zones and refuses anything else', () => {
    expect(knownTimeZone('Europe/Paris')).to.equal(true);
    for (const bad of ['Mars/Olympus', '', null, undefined, '+02:00x']) expect(knownTimeZone(bad), String(bad)).to.equal(false);
    expect(() => zoneOffsetMinutes('Mars/Olympus', new Date())).to.throw(RangeError);
    expect(zoneSpecFor('Mars/Olympus', -420)).to.deep.equal({ offsetMinutes: -420 });
    expect(zoneSpecFor(null, 60)).to.deep.equal({ offsetMinutes: 60 });
    expect(zoneSpecFor('Europe/Paris', 60)).to.deep.equal({ zone: 'Europe/Paris' });
  });
});

describe('zonedInstant', () => {
  const paris = { zone: 'Europe/Paris' };
  it('reads a clock time with the offset of that day (either side of the DST change)', () => {
    expect(zonedInstant(paris, 2026, 3, 28, 9, 0).toISOString()).to.equal('2026-03-28T08:00:00.000Z');
    expect(zonedInstant(paris, 2026, 3, 29, 9, 0).toISOString()).to.equal('2026-03-29T07:00:00.000Z');
    expect(zonedInstant(paris, 2026, 10, 24, 9, 0).toISOString()).to.equal('2026-10-24T07:00:00.000Z');
    expect(zonedInstant(paris, 2026, 10, 25, 9, 0).toISOString()).to.equal('2026-10-25T08:00:00.000Z');
    // Just before the jump the old offset still holds.
    expect(zonedInstant(paris, 2026, 3, 29, 1, 59).toISOString()).to.equal('2026-03-29T00:59:00.000Z');
    expect(zonedInstant(paris, 2026, 3, 29, 3, 0).toISOString()).to.equal('2026-03-29T01:00:00.000Z');
  });

  it('a clock time skipped by the spring jump is the moment of the jump', () => {
    expect(zonedInstant(paris, 2026, 3, 29, 2, 30).toISOString()).to.equal('2026-03-29T01:00:00.000Z');
  });

  it('a clock time shown twice in autumn is its first occurrence', () => {
    expect(zonedInstant(paris, 2026, 10, 25, 2, 30).toISOString()).to.equal('2026-10-25T00:30:00.000Z');
  });

  it('a fixed offset (devices with no known zone)', () => {
    expect(zonedInstant({ offsetMinutes: -420 }, 2026, 11, 24, 14, 0).toISOString()).to.equal('2026-11-24T21:00:00.000Z');
    expect(zonedInstant({ offsetMinutes: 330 }, 2026, 11, 24, 0, 15).toISOString()).to.equal('2026-11-23T18:45:00.000Z');
  });
});

describe('nextClockTime', () => {
  const paris = { zone: 'Europe/Paris' };
  it("today's clock time when still ahead, including exactly now", () => {
    expect(nextClockTime(paris, '09:00', at('2026-03-28T06:00:00Z')).toISOString()).to.equal('2026-03-28T08:00:00.000Z');
    expect(nextClockTime(paris, '09:00', at('2026-03-28T08:00:00Z')).toISOString()).to.equal('2026-03-28T08:00:00.000Z');
  });

  it("tomorrow's once today's has passed, across the DST change (23 hours later)", () => {
    expect(nextClockTime(paris, '09:00', at('2026-03-28T08:00:00.001Z')).toISOString()).to.equal('2026-03-29T07:00:00.000Z');
    expect(nextClockTime(paris, '09:00', at('2026-10-24T12:00:00Z')).toISOString()).to.equal('2026-10-25T08:00:00.000Z');
  });

  it("the day is the zone's own date, not UTC's", () => {
    // 12:00Z on 24 Nov is already 01:00 on 25 Nov in Auckland: its 12:00 that day is still ahead.
    expect(nextClockTime({ zone: 'Pacific/Auckland' }, '12:00', at('2026-11-24T12:00:00Z')).toISOString()).to.equal('2026-11-24T23:00:00.000Z');
    // 02:00Z on 25 Nov is still 24 Nov (21:00) in New York: 20:00 there is tomorrow's.
    expect(nextClockTime({ zone: 'America/New_York' }, '20:00', at('2026-11-25T02:00:00Z')).toISOString()).to.equal('2026-11-26T01:00:00.000Z');
    expect(nextClockTime({ offsetMinutes: -420 }, '14:00', at('2026-11-24T21:00:00Z')).toISOString()).to.equal('2026-11-24T21:00:00.000Z');
    expect(nextClockTime({ offsetMinutes: 0 }, '00:00', at('2026-12-31T23:59:00Z')).toISOString()).to.equal('2027-01-01T00:00:00.000Z');
  });
});
