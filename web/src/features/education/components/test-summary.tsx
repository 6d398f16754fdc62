import { Box, Chip, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { Fragment } from 'react';

import { DataTable } from '@/components/data-table';
import type { TestResult, TestSummary as Summary } from '@/gen/portal/education/v1/education_pb';
import { formatInstant } from '@/lib/dates';
import { strings } from '@/lib/strings';

const text = strings.education.test;

/** Spec §2: what the test asks and how many tries are left. */
export function TestSummary({ summary }: { summary: Summary }) {
  const fields: [string, string | number][] = [
    [text.description, summary.description],
    [text.numberOfQuestions, summary.numberOfQuestions],
    [text.pointsRequired, summary.totalPointsRequired],
    [text.numberOfTries, summary.numberOfTries],
    [text.triesLeft, summary.numberOfTriesLeft],
  ];
  return (
    <Box
      component="dl"
      sx={{
        display: 'grid',
        gridTemplateColumns: { xs: '1fr', sm: 'minmax(200px, auto) 1fr' },
        columnGap: 3,
        rowGap: { xs: 0, sm: 1.5 },
        m: 0,
      }}
    >
      {fields.map(([label, value]) => (
        <Fragment key={label}>
          <Typography component="dt" sx={{ color: 'text.secondary', mt: { xs: 1.5, sm: 0 } }}>
            {label}
          </Typography>
          <Typography component="dd" sx={{ m: 0, fontWeight: 500 }}>
            {value}
          </Typography>
        </Fragment>
      ))}
    </Box>
  );
}

/** A result as passed or failed, the same everywhere it is shown. */
export function ResultChip({ isPassed }: { isPassed: boolean }) {
  return (
    <Chip
      size="small"
      color={isPassed ? 'success' : 'error'}
      variant="outlined"
      label={isPassed ? text.passed : text.failed}
    />
  );
}

/** The learner's earlier attempts at the test: date, points and passed/failed, newest first. */
export function AttemptHistory({ results }: { results: TestResult[] }) {
  if (results.length === 0) {
    return <Typography sx={{ color: 'text.secondary' }}>{text.noAttempts}</Typography>;
  }
  return (
    <DataTable label={text.attempts} framed>
      <TableHead>
        <TableRow>
          <TableCell>{text.date}</TableCell>
          <TableCell>{text.points}</TableCell>
          <TableCell>{text.result}</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {[...results].reverse().map((result) => (
          <TableRow key={result.id}>
            <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatInstant(result.dateCompletion)}</TableCell>
            <TableCell sx={{ whiteSpace: 'nowrap' }}>
              {text.pointsOf(result.totalPoint, result.totalPointsPossible)}
            </TableCell>
            <TableCell>
              <ResultChip isPassed={result.isPassed} />
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </DataTable>
  );
}
