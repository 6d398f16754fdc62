import { useParams } from 'react-router';

import { EditPage } from '@/components/edit-page';
import { adminStrings } from '@/lib/admin-strings';
import { errorMessage } from '@/lib/errors';
import { parseId } from '@/lib/ids';

import { useDepartmentWithUsers, useUpdateDepartment } from '../../api/auth-queries';
import { DepartmentForm, type DepartmentFormValues } from './department-form';
import { InviteDepartment } from './invite-department';

export function DepartmentPage() {
  const departmentId = parseId(useParams().adminDepartmentId);
  const query = useDepartmentWithUsers(departmentId);
  const update = useUpdateDepartment();

  return (
    <EditPage
      id={departmentId}
      load={query}
      entity={query.data?.department}
      title={(department) => department.title}
      formId="department"
      save={(department, values: DepartmentFormValues) =>
        update.mutateAsync({ id: department.id, ...values })
      }
      saved={adminStrings.department.saved}
      failed={errorMessage}
      maxWidth={880}
      below={(department) => <InviteDepartment departmentId={department.id} />}
    >
      {(department, form) => (
        <DepartmentForm
          {...form}
          initial={{ title: department.title, userIds: department.users.map((user) => user.id) }}
        />
      )}
    </EditPage>
  );
}
