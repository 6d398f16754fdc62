import { useState } from 'react';

import { CreateDialog } from '@/components/create-dialog';
import { adminStrings } from '@/lib/admin-strings';
import { errorMessage } from '@/lib/errors';
import { useSession } from '@/lib/session/session';

import {
  useCreateServiceAccount,
  type IssuedSecret,
  type ServiceAccountValues,
} from '../../api/service-account-queries';
import { SecretDialog } from './secret-dialog';
import { ServiceAccountForm } from './service-account-form';

/**
 * «Подключить систему»: the form, then the new account's client id and secret, shown once
 * over it (the form's dialog closes beneath a second later).
 */
export function CreateServiceAccountDialog() {
  const create = useCreateServiceAccount();
  const [issued, setIssued] = useState<IssuedSecret>();
  // The owner is the admin who registers the system unless they choose another person.
  const me = Number(useSession()?.user.sub ?? 0);

  return (
    <>
      <CreateDialog
        formId="create-service-account"
        text={adminStrings.serviceAccounts}
        failed={errorMessage}
        closeDelayMs={1000}
        create={async (values: ServiceAccountValues) => {
          const { clientId, clientSecret } = await create.mutateAsync(values);
          setIssued({ clientId, clientSecret });
        }}
      >
        {(form) => (
          <ServiceAccountForm {...form} initial={{ name: '', description: '', scopes: [], ownerId: me }} />
        )}
      </CreateDialog>
      <SecretDialog issued={issued} kind="created" onClose={() => setIssued(undefined)} />
    </>
  );
}
