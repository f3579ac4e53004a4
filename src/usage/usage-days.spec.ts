import { describe, expect, it } from '@jest/globals';
import {
  daysCovered,
  isCalendarDay,
  monthStart,
  nextDayStart,
  nextMonthStart,
  utcDay,
} from './usage-days.js';

describe('usage days', () => {
  it('names the UTC day, whatever the local time zone says', () => {
    expect(utcDay(new Date('2026-11-24T23:59:59.999Z'))).toBe('2026-11-24');
    expect(utcDay(new Date('2026-11-25T00:30:00+02:00'))).toBe('2026-11-24');
  });

  it('accepts real calendar days only', () => {
    for (const day of ['2026-11-24', '2024-02-29', '1970-01-01']) {
      expect({ day, ok: isCalendarDay(day) }).toEqual({ day, ok: true });
    }
    for (const day of ['2026-02-29', '2026-13-01', '2026-1-5', '2026-11-24T00:00', '', 'today']) {
      expect({ day, ok: isCalendarDay(day) }).toEqual({ day, ok: false });
    }
  });

  it('resets a day at the next UTC midnight and a month on the first of the next', () => {
    expect(nextDayStart('2026-11-30').toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(nextMonthStart('2026-11-24').toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(nextMonthStart('2026-12-31').toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(monthStart('2026-11-24')).toBe('2026-11-01');
  });

  it('counts the days of a range, both ends included', () => {
    expect(daysCovered('2026-11-24', '2026-11-24')).toBe(1);
    expect(daysCovered('2026-01-01', '2026-12-31')).toBe(365);
    expect(daysCovered('2026-11-24', '2026-11-23')).toBe(0);
  });
});
