import { expect } from 'chai';
import { SEND_AFTER_PAST, SEND_AFTER_TOO_FAR, SEND_AFTER_UNREADABLE, THROTTLE_MESSAGE } from './send-schedule.js';
import { NOW, problems, validate } from './helpers.test-support.js';

describe('throttle_rate_per_minute', () => {
  const accepted: Array<[unknown, number]> = [
    [1, 1], [100000, 100000], ['1', 1], ['600', 600], ['100000', 100000], ['007', 7], [60.0, 60],
  ];
  for (const [value, rate] of accepted) {
    it(`accepts ${JSON.stringify(value)} as ${rate}`, () => {
      expect(validate({ throttle_rate_per_minute: value }).throttleRatePerMinute).to.equal(rate);
    });
  }

  const refused: unknown[] = [
    0, -1, 100001, 1.5, '0', '100001', '1.5', ' 10', '10 ', '+10', '-10', '1e3', '', 'ten', true, {}, [10],
    '9999999999999999999999',
  ];
  for (const value of refused) {
    it(`refuses ${JSON.stringify(value)} with the contract's message`, () => {
      expect(problems(() => validate({ throttle_rate_per_minute: value }))).to.deep.equal([THROTTLE_MESSAGE]);
    });
  }
});

describe('send_after', () => {
  const at = (ms: number) => new Date(NOW.getTime() + ms).toISOString();
  const DAY = 86_400_000;

  const formats: Array<[string, string]> = [
    ['2026-03-02T05:00:00-07:00', '2026-03-02T12:00:00.000Z'],
    ['2026-03-02T12:00:00Z', '2026-03-02T12:00:00.000Z'],
    ['2026-03-02 12:00:00', '2026-03-02T12:00:00.000Z'], // no offset: UTC
    ['Mon Mar 02 2026 05:00:00 GMT-0700 (PDT)', '2026-03-02T12:00:00.000Z'],
    ['2026-03-02 05:00:00 GMT-0700', '2026-03-02T12:00:00.000Z'],
  ];
  for (const [text, iso] of formats) {
    it(`schedules "${text}"`, () => {
      expect(validate({ send_after: text }).sendAfter?.toISOString()).to.equal(iso);
    });
  }

  it('treats up to 60 seconds in the past as now (no sendAfter)', () => {
    expect(validate({ send_after: at(-60_000) })).to.not.have.property('sendAfter');
    expect(validate({ send_after: at(0) })).to.not.have.property('sendAfter');
  });

  it('accepts exactly 30 days ahead', () => {
    expect(validate({ send_after: at(30 * DAY) }).sendAfter?.toISOString()).to.equal(at(30 * DAY));
  });

  const refused: Array<[string, string]> = [
    [at(-61_000), SEND_AFTER_PAST],
    [at(30 * DAY + 1000), SEND_AFTER_TOO_FAR],
    ['next tuesday', SEND_AFTER_UNREADABLE],
    ['2026-02-30T10:00:00Z', SEND_AFTER_UNREADABLE],
  ];
  for (const [text, message] of refused) {
    it(`refuses "${text}"`, () => {
      expect(problems(() => validate({ send_after: text }))).to.deep.equal([message]);
    });
  }

  it('uses the injected clock, not the host clock', () => {
    const later = new Date('2027-01-01T00:00:00Z');
    expect(problems(() => validate({ send_after: '2026-12-31T23:58:00Z' }, { now: later }))).to.deep.equal([
      SEND_AFTER_PAST,
    ]);
    expect(validate({ send_after: '2027-01-02T00:00:00Z' }, { now: later }).sendAfter).to.be.instanceOf(Date);
  });
});

describe('delayed_option and delivery_time_of_day', () => {
  it('timezone with send_after: the clock time and offset of send_after', () => {
    const req = validate({ delayed_option: 'timezone', send_after: '2026-03-02T09:30:00+01:00' });
    expect(req.timezoneDelivery).to.deep.equal({ timeOfDay: '09:30', fallbackOffsetMinutes: 60 });
    expect(req.sendAfter?.toISOString()).to.equal('2026-03-02T08:30:00.000Z');
  });

  it('timezone with delivery_time_of_day alone: that time, UTC fallback, from now', () => {
    const req = validate({ delayed_option: 'timezone', delivery_time_of_day: '9:00AM' });
    expect(req.timezoneDelivery).to.deep.equal({ timeOfDay: '09:00', fallbackOffsetMinutes: 0 });
    expect(req).to.not.have.property('sendAfter');
  });

  it('delivery_time_of_day wins over the clock time of send_after', () => {
    const req = validate({
      delayed_option: 'timezone',
      send_after: '2026-03-02T09:30:00-05:00',
      delivery_time_of_day: '21:45',
    });
    expect(req.timezoneDelivery).to.deep.equal({ timeOfDay: '21:45', fallbackOffsetMinutes: -300 });
  });

  it('takes delayed_option last-active, with or without send_after (which moves its start)', () => {
    expect(validate({ delayed_option: 'last-active' })).to.include({ lastActiveDelivery: true }).and.not.have.property('timezoneDelivery');
    const later = validate({ delayed_option: 'last-active', send_after: '2026-03-02T09:30:00Z' });
    expect(later.lastActiveDelivery).to.equal(true);
    expect(later.sendAfter?.toISOString()).to.equal('2026-03-02T09:30:00.000Z');
  });

  const refused: Array<[Record<string, unknown>, string]> = [
    [{ delayed_option: 'intelligent', send_after: '2026-03-02T09:30:00Z' }, 'delayed_option is timezone or last-active.'],
    [{ delayed_option: 'last-active', delivery_time_of_day: '9:00' }, 'delivery_time_of_day goes with delayed_option timezone; last-active sends each device at the time of day it was last active.'],
    [{ delayed_option: 'timezone' }, 'delayed_option timezone needs send_after or delivery_time_of_day.'],
    [{ delayed_option: 'timezone', delivery_time_of_day: '25:00' }, 'delivery_time_of_day must be a clock time such as 9:00AM or 21:45.'],
    [{ delivery_time_of_day: '9:00AM' }, 'delivery_time_of_day needs delayed_option: timezone.'],
  ];
  for (const [changes, message] of refused) {
    it(`refuses ${JSON.stringify(changes)}`, () => {
      expect(problems(() => validate(changes))).to.deep.equal([message]);
    });
  }
});
