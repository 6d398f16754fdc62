import { useParams } from 'react-router';

import { EditPage } from '@/components/edit-page';
import { RevisionHistory } from '@/components/revision-history';
import { adminStrings } from '@/lib/admin-strings';
import { parseId } from '@/lib/ids';
import { strings } from '@/lib/strings';

import {
  useFullTest,
  useRestoreTestRevision,
  useTestRevisions,
  useTestRevisionText,
  useUpdateTest,
} from '../../api/education-queries';
import { draftOf, testFields, type TestDraft } from '../../utils/test-draft';
import { QuestionAnalysis } from './question-analysis';
import { TestForm } from './test-form';

const text = adminStrings.education.test;

/** «История изменений» of the test; a restore never changes results already scored. */
function TestHistory({ testId }: { testId: bigint }) {
  const restore = useRestoreTestRevision();
  return (
    <RevisionHistory
      load={useTestRevisions(testId)}
      size={strings.revisions.testSize}
      textOf={useTestRevisionText(testId)}
      restore={(revisionId) => restore.mutateAsync({ testId, revisionId })}
      cacheKey={['test', testId.toString()]}
    />
  );
}

export function TestPage() {
  const testId = parseId(useParams().adminTestId);
  const query = useFullTest(testId);
  const update = useUpdateTest();

  return (
    <EditPage
      id={testId}
      load={query}
      entity={query.data?.test}
      title={(test) => test.title}
      formId="test"
      save={(test, draft: TestDraft) => update.mutateAsync({ id: test.id, ...testFields(draft) })}
      saved={text.saved}
      failed={() => text.saveFailed}
      maxWidth={960}
      below={(test) => (
        <>
          <QuestionAnalysis testId={test.id} />
          <TestHistory testId={test.id} />
        </>
      )}
    >
      {/* New questions come back with ids: the form starts again from the saved test. */}
      {(test, form) => <TestForm {...form} initial={draftOf(test)} />}
    </EditPage>
  );
}
