import { useParams } from 'react-router';

import { EditPage } from '@/components/edit-page';
import { EntityHistory } from '@/components/entity-history';
import { adminStrings } from '@/lib/admin-strings';
import { errorMessage } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { fullName } from '@/lib/person-name';
import { strings } from '@/lib/strings';

import { useUpdateUser, useUser } from '../../api/auth-queries';
import { formValuesOf, type UserFormValues } from '../../utils/user-form-values';
import { EndSessions } from './end-sessions';
import { FirstSignIn } from './first-sign-in';
import { ResetSecondFactor } from './reset-second-factor';
import { UserForm } from './user-form';

export function UserPage() {
  const userId = parseId(useParams().adminUserId);
  const query = useUser(userId);
  const update = useUpdateUser();

  return (
    <EditPage
      id={userId}
      load={query}
      entity={query.data?.user}
      loadFailed={strings.errors.formLoadFailed}
      title={fullName}
      formId="user"
      save={(user, values: UserFormValues) => update.mutateAsync({ id: user.id, user: values })}
      saved={adminStrings.user.saved}
      failed={errorMessage}
      maxWidth={880}
      below={(user) => (
        <>
          <FirstSignIn userId={user.id} />
          <EndSessions userId={user.id} name={fullName(user)} />
          <ResetSecondFactor userId={user.id} name={fullName(user)} />
          <EntityHistory entity="user" entityId={user.id} version={query.dataUpdatedAt} />
        </>
      )}
    >
      {/* Saved data comes back refetched: the form starts again from it, the password blank. */}
      {(user, form) => <UserForm {...form} mode="edit" initial={formValuesOf(user)} />}
    </EditPage>
  );
}
