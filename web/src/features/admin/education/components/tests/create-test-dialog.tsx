import { CreateDialog } from '@/components/create-dialog';
import { adminStrings } from '@/lib/admin-strings';

import { useCreateTest } from '../../api/education-queries';
import { emptyTest, testFields, type TestDraft } from '../../utils/test-draft';
import { TestForm } from './test-form';

const text = adminStrings.education.test;

export function CreateTestDialog() {
  const create = useCreateTest();
  return (
    <CreateDialog
      formId="create-test"
      text={text}
      failed={() => text.createFailed}
      closeDelayMs={2000}
      wide
      create={(draft: TestDraft) => create.mutateAsync(testFields(draft))}
    >
      {(form) => <TestForm {...form} initial={emptyTest()} />}
    </CreateDialog>
  );
}
