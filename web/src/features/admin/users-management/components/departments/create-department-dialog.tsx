import AddBusinessOutlined from '@mui/icons-material/AddBusinessOutlined';

import { CreateDialog } from '@/components/create-dialog';
import { adminStrings } from '@/lib/admin-strings';
import { errorMessage } from '@/lib/errors';

import { useCreateDepartment } from '../../api/auth-queries';
import { DepartmentForm } from './department-form';

const empty = { title: '', userIds: [] };

export function CreateDepartmentDialog() {
  const create = useCreateDepartment();
  return (
    <CreateDialog
      formId="create-department"
      text={adminStrings.department}
      failed={errorMessage}
      closeDelayMs={3000}
      create={create.mutateAsync}
      button={{ startIcon: <AddBusinessOutlined /> }}
    >
      {(form) => <DepartmentForm {...form} initial={empty} />}
    </CreateDialog>
  );
}
