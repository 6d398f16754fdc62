import AddOutlined from '@mui/icons-material/AddOutlined';
import { Button } from '@mui/material';
import { useState } from 'react';

import { FormDialog } from '@/components/form-dialog';
import { adminStrings } from '@/lib/admin-strings';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { useCreateTest } from '../../api/education-queries';
import { emptyTest, testFields } from '../../utils/test-draft';
import { TestForm } from './test-form';

const formId = 'create-test';
const text = adminStrings.education.test;

export function CreateTestDialog() {
  const [open, setOpen] = useState(false);
  const [formKey, setFormKey] = useState(0);
  const create = useCreateTest();

  return (
    <>
      <Button variant="contained" startIcon={<AddOutlined />} onClick={() => setOpen(true)}>
        {text.create}
      </Button>
      <FormDialog
        open={open}
        title={text.createTitle}
        formId={formId}
        submitLabel={strings.common.create}
        pending={create.isPending}
        succeeded={create.isSuccess}
        closeDelayMs={2000}
        wide
        onClose={() => setOpen(false)}
        onDone={() => {
          setOpen(false);
          setFormKey((key) => key + 1);
          create.reset();
        }}
      >
        <TestForm
          key={formKey}
          id={formId}
          initial={emptyTest()}
          disabled={create.isPending || create.isSuccess}
          onSubmit={(draft) =>
            create.mutate(testFields(draft), {
              onSuccess: () => notify.success(text.created),
              onError: () => notify.error(text.createFailed),
            })
          }
        />
      </FormDialog>
    </>
  );
}
