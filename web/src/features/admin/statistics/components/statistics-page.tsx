import FileDownloadOutlined from '@mui/icons-material/FileDownloadOutlined';
import { Alert, Button, Stack, Typography } from '@mui/material';
import { useState } from 'react';

import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { adminStrings } from '@/lib/admin-strings';
import { notify } from '@/lib/notifications';
import { downloadWithSession } from '@/lib/session/download';
import { Right, useHasRight } from '@/lib/session/rights';
import { strings } from '@/lib/strings';

import { useDepartmentsAndPeople } from '../../api/people-queries';
import { datesReversed, noFilter, useStatistics, type StatisticsFilter } from '../api/statistics-queries';
import { exportPath } from '../utils/export-path';
import { groupResults } from '../utils/group-results';
import { ResultGroups } from './result-groups';
import { StatisticsFilters } from './statistics-filters';

const text = adminStrings.statistics;

/** Spec §2's /admin/statistics: every admin sees the tab; the results need EducationManagement. */
export function StatisticsPage() {
  const allowed = useHasRight(Right.EducationManagement) === true;
  return (
    <>
      <PageHeader title={strings.pages.adminStatistics} />
      {allowed ? <Statistics /> : <Alert severity="info">{text.needsRight}</Alert>}
    </>
  );
}

function Statistics() {
  // The filters as shown, and the last of them the server can answer: a reversed period is
  // told by a toast and keeps the results of the last good filter (no error page; issue 19).
  const [filter, setFilter] = useState<StatisticsFilter>(noFilter);
  const [applied, setApplied] = useState<StatisticsFilter>(noFilter);
  const [exporting, setExporting] = useState(false);
  const query = useStatistics(applied);
  const changeFilter = (next: StatisticsFilter) => {
    setFilter(next);
    if (datesReversed(next)) notify.error(text.datesReversed);
    else setApplied(next);
  };
  const { people } = useDepartmentsAndPeople();
  const nameOf = (userId: bigint) => people.get(userId)?.label ?? text.unknownPerson(userId);

  const exportCsv = async () => {
    setExporting(true);
    const failure = await downloadWithSession(exportPath(applied, new Date()), 'statistics.csv');
    setExporting(false);
    if (failure !== null) notify.error(failure);
  };

  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <LoadError />;
  else {
    const results = query.data.pages.flatMap((page) => page.results);
    const first = query.data.pages[0];
    const total = first?.totalCount ?? 0n;
    const capped = first?.totalCountCapped ?? false;
    content = (
      <Stack spacing={2}>
        <Typography role="status" sx={{ color: 'text.secondary' }}>
          {text.found(total, capped)}
        </Typography>
        {results.length === 0 ? (
          <Typography>{text.empty}</Typography>
        ) : (
          <ResultGroups groups={groupResults(results, nameOf)} />
        )}
        {query.hasNextPage && (
          <Stack direction="row" sx={{ justifyContent: 'center' }}>
            <Button
              variant="outlined"
              onClick={() => void query.fetchNextPage()}
              loading={query.isFetchingNextPage}
            >
              {text.more}
            </Button>
          </Stack>
        )}
      </Stack>
    );
  }

  return (
    <>
      <Stack direction="row" sx={{ justifyContent: 'flex-end', mb: 2 }}>
        <Button
          variant="outlined"
          startIcon={<FileDownloadOutlined />}
          onClick={() => void exportCsv()}
          loading={exporting}
        >
          {text.exportCsv}
        </Button>
      </Stack>
      <StatisticsFilters value={filter} onChange={changeFilter} />
      {content}
    </>
  );
}
