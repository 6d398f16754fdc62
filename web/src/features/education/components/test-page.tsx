import { timestampDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError } from '@connectrpc/connect';
import { Paper, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { useParams } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { NotFound } from '@/components/not-found';
import { PageHeader } from '@/components/page-header';
import { paths } from '@/config/paths';
import type { CompleteTestResponse, StartAttemptResponse } from '@/gen/portal/education/v1/education_pb';
import { errorMessage, isClientError } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';
import { useNow } from '@/lib/use-now';

import {
  useCompleteTest,
  useMyResults,
  useMyTests,
  useRefreshEducation,
  useStartAttempt,
  useTestSummary,
} from '../api/education-queries';
import { dropChosen, type OpenAttempt } from '../utils/attempt-draft';
import { AttemptForm, type ChosenAnswer } from './attempt-form';
import { NextStep } from './next-step';
import { ResultDialog } from './result-dialog';
import { AttemptHistory, TestSummary } from './test-summary';

const text = strings.education.test;

/**
 * Spec §4's test flow: the summary with earlier attempts, then the drawn questions once
 * started, then the result dialog; closing it loads the page's data afresh (the summary
 * shows the try taken, the history the new result).
 */
export function TestPage() {
  const testId = parseId(useParams().testId);
  const summary = useTestSummary(testId);
  const results = useMyResults(testId);
  const myTests = useMyTests();
  const start = useStartAttempt();
  const complete = useCompleteTest();
  const refresh = useRefreshEducation();
  const [attempt, setAttempt] = useState<StartAttemptResponse>();
  const [result, setResult] = useState<CompleteTestResponse>();
  // An open attempt's minutes left count down, and it is over once expired.
  const now = useNow(15_000);

  const missing = (
    <NotFound
      message={strings.errors.testNotFound}
      backTo={paths.courses}
      backLabel={strings.errors.toCourses}
    />
  );
  if (testId === undefined || isClientError(summary.error)) return missing;
  if (summary.isError) return <LoadError />;
  if (summary.isPending) return <Loading />;
  const found = summary.data.summary;
  if (!found) return missing;

  const taken = results.data?.results ?? [];
  // A pass as "My tests" counts it (in the current cycle of a course that expires); a test
  // not assigned to the reader (an admin's look) by any pass at all.
  const passed =
    myTests.data?.tests.find((assigned) => assigned.summary?.id === testId)?.isPassed ??
    taken.some((done) => done.isPassed);
  // The attempt in progress the server knows of (before a reload, in another tab or on
  // another device), until it expires.
  const inProgress = attempt ? undefined : found.attemptInProgress;
  const expiresAt = inProgress?.expiresAt && timestampDate(inProgress.expiresAt);
  const open: OpenAttempt | undefined =
    inProgress && expiresAt && expiresAt > now ? { attemptId: inProgress.attemptId, expiresAt } : undefined;

  const reload = () => {
    setResult(undefined);
    setAttempt(undefined);
    void refresh();
  };

  const begin = () =>
    start.mutate(
      { testId },
      {
        onSuccess: (started) => {
          setAttempt(started);
          void refresh();
        },
        onError: (error) => {
          notify.error(errorMessage(error));
          void refresh();
        },
      },
    );

  const finish = (answers: ChosenAnswer[]) => {
    if (!attempt) return;
    complete.mutate(
      { testId, attemptId: attempt.attemptId, questionWithAnswers: answers },
      {
        onSuccess: (completed) => {
          dropChosen(attempt.attemptId);
          setResult(completed);
        },
        onError: (error) => {
          notify.error(errorMessage(error));
          // Expired or already completed: this attempt is over; show where the tries stand.
          if (error instanceof ConnectError && error.code === Code.FailedPrecondition) {
            dropChosen(attempt.attemptId);
            reload();
          }
        },
      },
    );
  };

  return (
    <>
      <PageHeader title={found.title} />
      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 }, mb: 3 }}>
        <TestSummary summary={found} />
      </Paper>
      {attempt ? (
        <AttemptForm attempt={attempt} submitting={complete.isPending} onFinish={finish} />
      ) : (
        <Stack spacing={2}>
          <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
            {text.attempts}
          </Typography>
          {results.isError ? (
            <LoadError />
          ) : (
            // «Вы ещё не проходили» would read wrong beside an attempt in progress.
            (taken.length > 0 || !open) && <AttemptHistory results={taken} />
          )}
          <NextStep
            triesLeft={found.numberOfTriesLeft}
            passed={passed}
            open={open}
            now={now}
            starting={start.isPending}
            onStart={begin}
          />
        </Stack>
      )}
      <ResultDialog result={result} onClose={reload} />
    </>
  );
}
