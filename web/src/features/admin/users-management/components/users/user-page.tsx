import { Button, Paper, Stack } from '@mui/material';
import { useParams } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { errorMessage } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { notify } from '@/lib/notifications';
import { fullName } from '@/lib/person-name';
import { strings } from '@/lib/strings';

import { useUpdateUser, useUser } from '../../api/auth-queries';
import { formValuesOf } from '../../utils/user-form-values';
import { UserForm } from './user-form';

const formId = 'user';

export function UserPage() {
  const userId = parseId(useParams().adminUserId);
  const query = useUser(userId);
  const update = useUpdateUser();

  const loadFailed = <LoadError message={strings.errors.formLoadFailed} />;
  if (userId === undefined || query.isError) return loadFailed;
  if (query.isPending) return <Loading />;
  const user = query.data.user;
  if (!user) return loadFailed;

  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 }, maxWidth: 880 }}>
      <PageHeader title={fullName(user)} />
      <Stack spacing={3}>
        {/* Saved data comes back refetched: a new key starts the form from it (password blank). */}
        <UserForm
          key={query.dataUpdatedAt}
          id={formId}
          mode="edit"
          initial={formValuesOf(user)}
          disabled={update.isPending}
          onSubmit={(values) =>
            update.mutate(
              { id: user.id, user: values },
              {
                onSuccess: () => notify.success(strings.admin.user.saved),
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
