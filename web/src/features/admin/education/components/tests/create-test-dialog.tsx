import { adminStrings } from '@/lib/admin-strings';

import { useCreateTest } from '../../api/education-queries';
import { emptyTest, testFields, type TestDraft } from '../../utils/test-draft';
import { CreateDialog } from '../create-dialog';
import { TestForm } from './test-form';

export function CreateTestDialog() {
  const create = useCreateTest();
  return (
    <CreateDialog
      formId="create-test"
      text={adminStrings.education.test}
      creation={{
        ...create,
        mutate: (draft: TestDraft, callbacks) => create.mutate(testFields(draft), callbacks),
      }}
    >
      {(form) => <TestForm {...form} initial={emptyTest()} />}
    </CreateDialog>
  );
}
