import { describe, expect, it } from 'vitest';

import { formatDate, today } from './dates';

describe('dates', () => {
  it('formats a calendar date as DD.MM.YYYY and leaves anything else as it is', () => {
    expect(formatDate('2026-03-07')).toBe('07.03.2026');
    expect(formatDate('')).toBe('');
    expect(formatDate('07.03.2026')).toBe('07.03.2026');
  });

  it('gives today in local time', () => {
    expect(today(new Date(2026, 0, 5, 23, 30))).toBe('2026-01-05');
  });
});
