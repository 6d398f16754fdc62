import AddBusinessOutlined from '@mui/icons-material/AddBusinessOutlined';
import { Button } from '@mui/material';
import { useState } from 'react';

import { FormDialog } from '@/components/form-dialog';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { useCreateDepartment } from '../../api/auth-queries';
import { DepartmentForm } from './department-form';

const formId = 'create-department';
const empty = { title: '', userIds: [] };

export function CreateDepartmentDialog() {
  const [open, setOpen] = useState(false);
  const [formKey, setFormKey] = useState(0);
  const create = useCreateDepartment();

  return (
    <>
      <Button variant="contained" startIcon={<AddBusinessOutlined />} onClick={() => setOpen(true)}>
        {strings.admin.department.create}
      </Button>
      <FormDialog
        open={open}
        title={strings.admin.department.createTitle}
        formId={formId}
        submitLabel={strings.common.create}
        pending={create.isPending}
        succeeded={create.isSuccess}
        closeDelayMs={3000}
        onClose={() => setOpen(false)}
        onDone={() => {
          setOpen(false);
          setFormKey((key) => key + 1);
          create.reset();
        }}
      >
        <DepartmentForm
          key={formKey}
          id={formId}
          initial={empty}
          disabled={create.isPending || create.isSuccess}
          onSubmit={(values) =>
            create.mutate(values, {
              onSuccess: () => notify.success(strings.admin.department.created),
              onError: (error) => notify.error(errorMessage(error)),
            })
          }
        />
      </FormDialog>
    </>
  );
}
