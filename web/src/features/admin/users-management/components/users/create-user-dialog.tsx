import PersonAddAlt1Outlined from '@mui/icons-material/PersonAddAlt1Outlined';
import { Button } from '@mui/material';
import { useState } from 'react';

import { FormDialog } from '@/components/form-dialog';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { useCreateUser } from '../../api/auth-queries';
import { emptyUser } from '../../utils/user-form-values';
import { UserForm } from './user-form';

const formId = 'create-user';

export function CreateUserDialog() {
  const [open, setOpen] = useState(false);
  const [formKey, setFormKey] = useState(0);
  const create = useCreateUser();

  return (
    <>
      <Button variant="contained" startIcon={<PersonAddAlt1Outlined />} onClick={() => setOpen(true)}>
        {strings.admin.user.create}
      </Button>
      <FormDialog
        open={open}
        title={strings.admin.user.createTitle}
        formId={formId}
        submitLabel={strings.common.create}
        pending={create.isPending}
        succeeded={create.isSuccess}
        closeDelayMs={1000}
        onClose={() => setOpen(false)}
        onDone={() => {
          setOpen(false);
          setFormKey((key) => key + 1);
          create.reset();
        }}
      >
        <UserForm
          key={formKey}
          id={formId}
          mode="create"
          initial={emptyUser}
          disabled={create.isPending || create.isSuccess}
          onSubmit={(values) =>
            create.mutate(
              { user: values },
              {
                onSuccess: () => notify.success(strings.admin.user.created),
                onError: (error) => notify.error(strings.admin.user.createFailed + errorMessage(error)),
              },
            )
          }
        />
      </FormDialog>
    </>
  );
}
