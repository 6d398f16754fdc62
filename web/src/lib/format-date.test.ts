import { describe, expect, it } from 'vitest';

import { formatDateTime, formatDay } from './format-date';

describe('formatDateTime', () => {
  it('writes a result date as DD-MM-YYYY: HH-MM with leading zeros', () => {
    expect(formatDateTime(new Date(2026, 0, 5, 7, 3))).toBe('05-01-2026: 07-03');
    expect(formatDateTime(new Date(2026, 10, 23, 23, 59))).toBe('23-11-2026: 23-59');
  });
});

describe('formatDay', () => {
  it('turns a stored YYYY-MM-DD day around and leaves anything else alone', () => {
    expect(formatDay('2026-12-31')).toBe('31-12-2026');
    expect(formatDay('')).toBe('');
  });
});
