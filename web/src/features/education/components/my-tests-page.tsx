import QuizOutlined from '@mui/icons-material/QuizOutlined';
import { Button, Chip, Paper, Stack, Typography, type ChipProps } from '@mui/material';
import { Link } from 'react-router';

import { EmptyState } from '@/components/empty-state';
import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import type { AssignedTest } from '@/gen/portal/education/v1/education_pb';
import { formatDate, isOverdue } from '@/lib/dates';
import { strings } from '@/lib/strings';

import { useMyTests } from '../api/education-queries';
import { testPath } from '../utils/routes';

const text = strings.education.myTests;
const validity = strings.education.validity;

/**
 * The state of the learner's pass (issue 24): valid until a day, expiring within 30 days,
 * expired (due again) or not passed; a pass that never expires is just «Пройден».
 */
function passState(test: AssignedTest): { label: string; color: ChipProps['color'] } {
  const until = formatDate(test.validUntil);
  if (test.isExpired) return { label: validity.expired, color: 'error' };
  if (test.isExpiring) return { label: validity.expiring(until), color: 'warning' };
  if (test.isPassed) return { label: until ? validity.current(until) : text.passed, color: 'success' };
  return { label: validity.never, color: 'default' };
}

/** What is still to do comes first, the nearest deadline first; passed tests last. */
const byUrgency = (a: AssignedTest, b: AssignedTest) =>
  Number(a.isPassed) - Number(b.isPassed) || a.dateDeadline.localeCompare(b.dateDeadline);

/** "Мои тесты": the tests assigned to the signed-in user, tries left and deadline. */
export function MyTestsPage() {
  const query = useMyTests();
  if (query.isPending) return <Loading />;
  if (query.isError) return <LoadError />;
  if (query.data.tests.length === 0) {
    return (
      <EmptyState
        icon={<QuizOutlined sx={{ fontSize: 56, color: 'primary.main' }} />}
        title={strings.pages.myTests}
        text={text.empty}
      />
    );
  }

  const tests = [...query.data.tests].sort(byUrgency);
  return (
    <>
      <PageHeader title={strings.pages.myTests} />
      <Stack spacing={1.5}>
        {tests.map((test) => {
          const summary = test.summary;
          if (!summary) return null;
          const overdue = isOverdue(test.dateDeadline, test.isPassed);
          const state = passState(test);
          return (
            <Paper
              key={summary.id}
              component="article"
              aria-label={summary.title}
              variant="outlined"
              sx={{
                p: 2,
                display: 'flex',
                flexDirection: { xs: 'column', sm: 'row' },
                gap: 1.5,
                alignItems: { xs: 'stretch', sm: 'center' },
                borderColor: overdue ? 'error.main' : undefined,
              }}
            >
              <Stack spacing={0.5} sx={{ flex: 1, minWidth: 0 }}>
                <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
                  <Typography sx={{ fontWeight: 600 }}>{summary.title}</Typography>
                  <Chip size="small" color={state.color} label={state.label} />
                  {overdue && <Chip size="small" color="error" label={text.overdue} />}
                </Stack>
                <Typography variant="body2" sx={{ color: 'text.secondary' }}>
                  {`${text.article}: ${test.articleTitle}`}
                </Typography>
                {test.isExpired && (
                  <Typography variant="body2" sx={{ color: 'warning.dark' }}>
                    {validity.dueAgain}
                  </Typography>
                )}
                <Typography variant="body2" sx={{ color: overdue ? 'error.main' : 'text.secondary' }}>
                  {`${text.deadline}: ${test.dateDeadline} · ${text.triesLeft(summary.numberOfTriesLeft, summary.numberOfTries)}`}
                </Typography>
              </Stack>
              <Button
                variant="outlined"
                component={Link}
                to={testPath(test.courseId, test.articleId, summary.id)}
              >
                {text.open}
              </Button>
            </Paper>
          );
        })}
      </Stack>
    </>
  );
}
