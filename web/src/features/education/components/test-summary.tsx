import { type Timestamp, timestampDate } from '@bufbuild/protobuf/wkt';
import {
  Alert,
  Box,
  Chip,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { Fragment, useEffect, useState } from 'react';

import type { TestResult, TestSummary as Summary } from '@/gen/portal/education/v1/education_pb';
import { formatInstant, formatTime } from '@/lib/dates';
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

/** How long an attempt in progress has left, in whole minutes (rounded up), read every 15 s. */
function useMinutesLeft(expiresAt: Date | undefined) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const tick = window.setInterval(() => setNow(Date.now()), 15_000);
    return () => window.clearInterval(tick);
  }, []);
  return expiresAt ? Math.max(0, Math.ceil((expiresAt.getTime() - now) / 60_000)) : 0;
}

/** An attempt started and not yet over (a reload, another tab): how long is left, until when. */
export function InProgressNotice({ expiresAt }: { expiresAt: Timestamp | undefined }) {
  const minutesLeft = useMinutesLeft(expiresAt && timestampDate(expiresAt));
  return (
    <Alert severity="info" role="status">
      {text.inProgress(minutesLeft, formatTime(expiresAt))}
    </Alert>
  );
}

/**
 * The learner's earlier attempts at the test: date, points and passed/failed, newest first.
 * With none completed, «Вы ещё не проходили» unless an attempt is in progress.
 */
export function AttemptHistory({
  results,
  inProgress = false,
}: {
  results: TestResult[];
  inProgress?: boolean;
}) {
  if (results.length === 0) {
    return inProgress ? null : <Typography sx={{ color: 'text.secondary' }}>{text.noAttempts}</Typography>;
  }
  return (
    <Paper variant="outlined" sx={{ overflowX: 'auto' }}>
      <Table size="small" aria-label={text.attempts}>
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
      </Table>
    </Paper>
  );
}
