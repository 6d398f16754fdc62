import { Alert, AlertTitle, Box, Button, Stack } from '@mui/material';

import { formatTime } from '@/lib/dates';
import { strings } from '@/lib/strings';

import type { OpenAttempt } from '../utils/attempt-draft';

const text = strings.education.test;

type ContinueProps = { open: OpenAttempt; now: Date; starting: boolean; onStart: () => void };

function ContinueAttempt({ open, now, starting, onStart }: ContinueProps) {
  const minutesLeft = Math.max(1, Math.ceil((open.expiresAt.getTime() - now.getTime()) / 60_000));
  const until = formatTime(open.expiresAt);
  return (
    <Stack spacing={1.5} sx={{ alignItems: 'flex-start' }}>
      <Alert severity="info" role="status">
        {text.inProgress(until, minutesLeft)}
      </Alert>
      <Button variant="contained" size="large" onClick={onStart} loading={starting}>
        {text.resume}
      </Button>
    </Stack>
  );
}

type NextStepProps = {
  triesLeft: number;
  /** The reader holds a valid pass of the test. */
  passed: boolean;
  /** The reader's attempt in progress (the server's word), unexpired at `now`. */
  open: OpenAttempt | undefined;
  now: Date;
  starting: boolean;
  /** Starts a new attempt, or takes up the open one (StartAttempt gives it back). */
  onStart: () => void;
};

/**
 * What the learner can do next on a test's page: take up the attempt in progress, start one,
 * or nothing — tries spent, said as a warning only to someone who has not passed.
 */
export function NextStep({ triesLeft, passed, open, now, starting, onStart }: NextStepProps) {
  if (open) return <ContinueAttempt open={open} now={now} starting={starting} onStart={onStart} />;
  if (triesLeft === 0) {
    return passed ? (
      // Spec §2's sentence stays; after a pass it is news, not a warning.
      <Alert severity="success">
        <AlertTitle>{text.passedTitle}</AlertTitle>
        <div>{text.exhausted}</div>
      </Alert>
    ) : (
      <Alert severity="warning">{text.exhausted}</Alert>
    );
  }
  return (
    <Box>
      <Button variant="contained" size="large" onClick={onStart} loading={starting}>
        {text.start}
      </Button>
    </Box>
  );
}
