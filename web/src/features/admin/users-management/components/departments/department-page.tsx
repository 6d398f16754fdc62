import { Button, Paper, Stack } from '@mui/material';
import { useParams } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { errorMessage } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { useDepartmentWithUsers, useUpdateDepartment } from '../../api/auth-queries';
import { DepartmentForm } from './department-form';

const formId = 'department';

export function DepartmentPage() {
  const departmentId = parseId(useParams().adminDepartmentId);
  const query = useDepartmentWithUsers(departmentId);
  const update = useUpdateDepartment();

  if (departmentId === undefined || query.isError) return <LoadError />;
  if (query.isPending) return <Loading />;
  const department = query.data.department;
  if (!department) return <LoadError />;

  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 }, maxWidth: 880 }}>
      <PageHeader title={department.title} />
      <Stack spacing={3}>
        {/* Saved data comes back refetched: a new key starts the form from it. */}
        <DepartmentForm
          key={query.dataUpdatedAt}
          id={formId}
          initial={{ title: department.title, userIds: department.users.map((user) => user.id) }}
          disabled={update.isPending}
          onSubmit={(values) =>
            update.mutate(
              { id: department.id, ...values },
              {
                onSuccess: () => notify.success(strings.admin.department.saved),
                onError: (error) => notify.error(errorMessage(error)),
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
  );
}
