import { describe, expect, it } from 'vitest';

import { noFilter } from '../api/statistics-queries';
import { exportPath } from './export-path';

describe('exportPath', () => {
  it('carries the filters that are set and the time zone', () => {
    const now = new Date();
    const offset = String(-now.getTimezoneOffset());
    expect(exportPath(noFilter, now)).toBe(`/api/test/export-user-test-results?utcOffset=${offset}`);
    expect(
      exportPath({ ...noFilter, testId: 3n, userId: 7n, dateFrom: '2026-11-01', dateTo: '2026-11-30' }, now),
    ).toBe(
      `/api/test/export-user-test-results?testId=3&userId=7&dateFrom=2026-11-01&dateTo=2026-11-30&utcOffset=${offset}`,
    );
  });
});
