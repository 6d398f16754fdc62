import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';

import { formatInstant, isOverdue, localDay } from './dates';

describe('dates', () => {
  it('shows a completion as DD-MM-YYYY: HH-MM of the local clock', () => {
    const date = new Date(2026, 10, 3, 9, 5);
    expect(formatInstant(timestampFromDate(date))).toBe('03-11-2026: 09-05');
    expect(formatInstant(undefined)).toBe('');
  });

  it('marks a test overdue from the day after its deadline until it is passed', () => {
    const today = new Date(2026, 10, 23, 12, 0);
    expect(localDay(today)).toBe('2026-11-23');
    expect(isOverdue('2026-11-22', false, today)).toBe(true);
    expect(isOverdue('2026-11-23', false, today)).toBe(false);
    expect(isOverdue('2026-11-22', true, today)).toBe(false);
    expect(isOverdue('', false, today)).toBe(false);
  });
});
