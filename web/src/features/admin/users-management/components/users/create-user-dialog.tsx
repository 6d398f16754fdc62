import PersonAddAlt1Outlined from '@mui/icons-material/PersonAddAlt1Outlined';

import { CreateDialog } from '@/components/create-dialog';
import { adminStrings } from '@/lib/admin-strings';
import { errorMessage } from '@/lib/errors';

import { useCreateUser } from '../../api/auth-queries';
import { emptyUser, type UserFormValues } from '../../utils/user-form-values';
import { UserForm } from './user-form';

const text = adminStrings.user;

export function CreateUserDialog() {
  const create = useCreateUser();
  return (
    <CreateDialog
      formId="create-user"
      text={text}
      failed={(error) => text.createFailed + errorMessage(error)}
      closeDelayMs={1000}
      create={(user: UserFormValues) => create.mutateAsync({ user })}
      button={{ startIcon: <PersonAddAlt1Outlined /> }}
    >
      {(form) => <UserForm {...form} mode="create" initial={emptyUser} />}
    </CreateDialog>
  );
}
