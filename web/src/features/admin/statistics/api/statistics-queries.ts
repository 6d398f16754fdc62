import { useInfiniteQuery, useQuery } from '@connectrpc/connect-query';

import { EducationService } from '@/gen/portal/education/v1/education_pb';

/** The statistics filters (spec §2 and the issue); 0n and '' mean any. */
export type StatisticsFilter = {
  testId: bigint;
  departmentId: bigint;
  userId: bigint;
  dateFrom: string;
  dateTo: string;
};

export const noFilter: StatisticsFilter = {
  testId: 0n,
  departmentId: 0n,
  userId: 0n,
  dateFrom: '',
  dateTo: '',
};

/** Both dates given and the first after the second: the server refuses such a period. */
export const datesReversed = ({ dateFrom, dateTo }: StatisticsFilter) =>
  dateFrom !== '' && dateTo !== '' && dateFrom > dateTo;

const pageSize = 100;

/** Results filtered and paged on the server, newest first; the total is on the first page. */
export const useStatistics = (filter: StatisticsFilter) =>
  useInfiniteQuery(
    EducationService.method.listAllTestResults,
    { ...filter, pageSize, pageToken: '' },
    { pageParamKey: 'pageToken', getNextPageParam: (page) => page.nextPageToken || undefined },
  );

export const useTestChoices = () => useQuery(EducationService.method.listTests);
