import BarChartOutlined from '@mui/icons-material/BarChartOutlined';
import { Link, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router';

import { DataTable } from '@/components/data-table';
import { EmptyState } from '@/components/empty-state';
import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { formatInstant } from '@/lib/dates';
import { strings } from '@/lib/strings';

import { useMyResults, useMyTests } from '../api/education-queries';
import { testPath } from '../utils/routes';
import { ResultChip } from './test-summary';

const text = strings.education.test;

// On a phone the date goes under the test's title, so that the result stays in view.
const wideOnly = { display: { xs: 'none', sm: 'table-cell' } };

/** "Моя статистика": every result of the signed-in user, newest first. */
export function MyStatisticsPage() {
  const results = useMyResults(0n);
  const tests = useMyTests();
  if (results.isPending) return <Loading />;
  if (results.isError) return <LoadError />;
  if (results.data.results.length === 0) {
    return (
      <EmptyState
        icon={<BarChartOutlined sx={{ fontSize: 56, color: 'primary.main' }} />}
        title={strings.pages.myStatistics}
        text={strings.education.myStatistics.empty}
      />
    );
  }

  // A result links to its test's page while the test is still assigned.
  const assigned = new Map((tests.data?.tests ?? []).map((test) => [test.summary?.id, test]));
  const passed = tests.data?.tests.filter((test) => test.isPassed).length ?? 0;
  return (
    <>
      <PageHeader title={strings.pages.myStatistics} />
      <Typography sx={{ mb: 2, color: 'text.secondary' }}>
        {tests.data && `${strings.education.myStatistics.passedTests(passed, tests.data.tests.length)} · `}
        {strings.education.myStatistics.attempts(results.data.results.length)}
      </Typography>
      <DataTable label={strings.pages.myStatistics} framed>
        <TableHead>
          <TableRow>
            <TableCell>{strings.education.myStatistics.test}</TableCell>
            <TableCell sx={wideOnly}>{text.date}</TableCell>
            <TableCell>{text.points}</TableCell>
            <TableCell>{text.result}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {[...results.data.results].reverse().map((result) => {
            const test = assigned.get(result.test?.id);
            const title = result.test?.title ?? '';
            return (
              <TableRow key={result.id}>
                <TableCell>
                  {test ? (
                    <Link
                      component={RouterLink}
                      to={testPath(test.courseId, test.articleId, result.test?.id ?? 0n)}
                      underline="hover"
                    >
                      {title}
                    </Link>
                  ) : (
                    title
                  )}
                  <Typography
                    variant="body2"
                    sx={{ color: 'text.secondary', display: { sm: 'none' }, whiteSpace: 'nowrap' }}
                  >
                    {formatInstant(result.dateCompletion)}
                  </Typography>
                </TableCell>
                <TableCell sx={{ ...wideOnly, whiteSpace: 'nowrap' }}>
                  {formatInstant(result.dateCompletion)}
                </TableCell>
                <TableCell sx={{ whiteSpace: 'nowrap' }}>
                  {text.pointsOf(result.totalPoint, result.totalPointsPossible)}
                </TableCell>
                <TableCell>
                  <ResultChip isPassed={result.isPassed} />
                </TableCell>
              </TableRow>
            );
          })}
        </TableBody>
      </DataTable>
    </>
  );
}
