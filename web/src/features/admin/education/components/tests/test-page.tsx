import { Button, Paper, Stack } from '@mui/material';
import { useParams } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { adminStrings } from '@/lib/admin-strings';
import { parseId } from '@/lib/ids';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { useFullTest, useUpdateTest } from '../../api/education-queries';
import { draftOf, testFields } from '../../utils/test-draft';
import { QuestionAnalysis } from './question-analysis';
import { TestForm } from './test-form';

const formId = 'test';
const text = adminStrings.education.test;

export function TestPage() {
  const testId = parseId(useParams().adminTestId);
  const query = useFullTest(testId);
  const update = useUpdateTest();

  if (testId === undefined || query.isError) return <LoadError />;
  if (query.isPending) return <Loading />;
  const test = query.data.test;
  if (!test) return <LoadError />;

  return (
    <Stack spacing={3} sx={{ maxWidth: 960 }}>
      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
        <PageHeader title={test.title} />
        <Stack spacing={3}>
          {/* Saved data comes back refetched (new questions get ids): a new key starts from it. */}
          <TestForm
            key={query.dataUpdatedAt}
            id={formId}
            initial={draftOf(test)}
            disabled={update.isPending}
            onSubmit={(draft) =>
              update.mutate(
                { id: test.id, ...testFields(draft) },
                {
                  onSuccess: () => notify.success(text.saved),
                  onError: () => notify.error(text.saveFailed),
                },
              )
            }
          />
          <Stack direction="row" sx={{ justifyContent: 'flex-end' }}>
            <Button type="submit" form={formId} variant="contained" loading={update.isPending}>
              {strings.common.save}
            </Button>
          </Stack>
        </Stack>
      </Paper>
      <QuestionAnalysis testId={test.id} />
    </Stack>
  );
}
