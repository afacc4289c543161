import { expect } from 'chai';
import { parseTimeOfDay } from './time-of-day.js';

describe('parseTimeOfDay', () => {
  const cases: Array<[string, string | undefined]> = [
    ['9:00AM', '09:00'],
    ['9:00 am', '09:00'],
    ['9:30PM', '21:30'],
    ['12:00AM', '00:00'],
    ['12:15PM', '12:15'],
    ['21:45', '21:45'],
    ['00:00', '00:00'],
    ['07:05', '07:05'],
    ['21:45:00', '21:45'],
    ['24:00', undefined],
    ['13:00PM', undefined],
    ['0:30AM', undefined],
    ['9:60', undefined],
    ['9AM', undefined],
    ['noon', undefined],
  ];
  for (const [text, expected] of cases) {
    it(`"${text}" → ${expected ?? 'refused'}`, () => {
      expect(parseTimeOfDay(text)).to.equal(expected);
    });
  }
});
