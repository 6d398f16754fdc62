import type { StatisticsFilter } from '../api/statistics-queries';

/**
 * The CSV export of the statistics as filtered (gateway REST), with the reader's time zone
 * in minutes east of UTC, so the file's times match the page's.
 */
export function exportPath(filter: StatisticsFilter, now: Date): string {
  const query = new URLSearchParams();
  if (filter.testId !== 0n) query.set('testId', String(filter.testId));
  if (filter.departmentId !== 0n) query.set('departmentId', String(filter.departmentId));
  if (filter.userId !== 0n) query.set('userId', String(filter.userId));
  if (filter.dateFrom !== '') query.set('dateFrom', filter.dateFrom);
  if (filter.dateTo !== '') query.set('dateTo', filter.dateTo);
  query.set('utcOffset', String(-now.getTimezoneOffset()));
  return `/api/test/export-user-test-results?${query.toString()}`;
}
