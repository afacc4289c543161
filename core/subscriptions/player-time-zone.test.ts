// OneSignal's v1 `timezone` seconds as the zone an install keeps, and back (player-time-zone.ts):
// every zone chosen is one this runtime knows, and shows that offset in January and in July.
import { expect } from 'chai';
import { offsetSecondsOf, zoneOfOffset, OFFSET_MAX_SECONDS, OFFSET_MIN_SECONDS } from './player-time-zone.js';

describe('player time zones: v1 seconds ↔ the zone an install keeps', () => {
  const january = new Date('2027-01-15T12:00:00Z');
  const july = new Date('2027-07-15T12:00:00Z');

  it('gives every whole hour from -12 to +14 its Etc/GMT zone, which shows that offset all year', () => {
    for (let h = OFFSET_MIN_SECONDS / 3600; h <= OFFSET_MAX_SECONDS / 3600; h++) {
      const zone = zoneOfOffset(h * 3600);
      expect(zone, String(h)).to.be.a('string');
      expect([offsetSecondsOf(zone, january), offsetSecondsOf(zone, july)], `${h} → ${zone}`).to.deep.equal([h * 3600, h * 3600]);
    }
    expect(zoneOfOffset(3600)).to.equal('Etc/GMT-1');
    expect(zoneOfOffset(-18000)).to.equal('Etc/GMT+5');
  });

  it('gives the offsets off the hour a zone that keeps them all year, and the others none', () => {
    const kept = [-34200, 12600, 16200, 19800, 20700, 23400, 31500, 34200];
    for (const seconds of kept) {
      const zone = zoneOfOffset(seconds);
      expect([offsetSecondsOf(zone, january), offsetSecondsOf(zone, july)], `${seconds} → ${zone}`).to.deep.equal([seconds, seconds]);
    }
    for (const seconds of [-12600, -9000, 37800, 45900, 3601, 1800]) expect(zoneOfOffset(seconds), String(seconds)).to.equal(null);
  });

  it('reads no offset for no zone or an unknown one', () => {
    expect(offsetSecondsOf(null, january)).to.equal(null);
    expect(offsetSecondsOf('Mars/Olympus', january)).to.equal(null);
    expect(offsetSecondsOf('Europe/Paris', july)).to.equal(7200);
  });
});
