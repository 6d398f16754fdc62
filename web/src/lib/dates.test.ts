import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';

import {
  formatDate,
  formatDayAndTime,
  formatInstant,
  formatMoment,
  formatTime,
  isOverdue,
  localDay,
  today,
} from './dates';

describe('dates', () => {
  it("shows a test's completion as spec §9's DD-MM-YYYY: HH-MM of the local clock", () => {
    expect(formatInstant(timestampFromDate(new Date(2026, 0, 5, 7, 3)))).toBe('05-01-2026: 07-03');
    expect(formatInstant(timestampFromDate(new Date(2026, 10, 23, 23, 59)))).toBe('23-11-2026: 23-59');
    expect(formatInstant(undefined)).toBe('');
    expect(formatTime(timestampFromDate(new Date(2026, 10, 3, 9, 5)))).toBe('09:05');
  });

  it('formats any other calendar date as DD.MM.YYYY and leaves anything else as it is', () => {
    expect(formatDate('2026-03-07')).toBe('07.03.2026');
    expect(formatDate('')).toBe('');
    expect(formatDate('07.03.2026')).toBe('07.03.2026');
  });

  it('shows a REST instant as DD.MM.YYYY, HH:MM of the local clock, and nothing for none', () => {
    expect(formatMoment(new Date(2026, 10, 25, 9, 7).toISOString())).toBe('25.11.2026, 09:07');
    expect(formatDayAndTime(new Date(2026, 10, 5, 9, 7))).toBe('05.11.2026 09:07');
    expect(formatMoment(null)).toBe('');
    expect(formatMoment('')).toBe('');
    expect(formatMoment('вчера')).toBe('');
  });

  it('gives today in local time', () => {
    expect(today(new Date(2026, 0, 5, 23, 30))).toBe('2026-01-05');
  });

  it('marks a test overdue from the day after its deadline until it is passed', () => {
    const now = new Date(2026, 10, 23, 12, 0);
    expect(localDay(now)).toBe('2026-11-23');
    expect(isOverdue('2026-11-22', false, now)).toBe(true);
    expect(isOverdue('2026-11-23', false, now)).toBe(false);
    expect(isOverdue('2026-11-22', true, now)).toBe(false);
    expect(isOverdue('', false, now)).toBe(false);
  });
});
