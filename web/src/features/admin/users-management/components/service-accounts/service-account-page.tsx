import { Stack } from '@mui/material';
import { useParams } from 'react-router';

import { EditPage } from '@/components/edit-page';
import { adminStrings } from '@/lib/admin-strings';
import { errorMessage } from '@/lib/errors';
import { parseId } from '@/lib/ids';

import {
  useServiceAccount,
  useUpdateServiceAccount,
  type ServiceAccountValues,
} from '../../api/service-account-queries';
import { formVersion } from '../../utils/service-accounts';
import { PublicKeySection } from './public-key-section';
import { SecretsSection } from './secrets-section';
import { ServiceAccountForm } from './service-account-form';
import { StateSection } from './state-section';

/**
 * One external system: its form (name, description, scopes, owner), then its secrets, its
 * public key and its state, each changed on its own.
 */
export function ServiceAccountPage() {
  const accountId = parseId(useParams().serviceAccountId);
  const { query, account } = useServiceAccount(accountId);
  const update = useUpdateServiceAccount();

  return (
    <EditPage
      id={accountId}
      // The form starts again when what it edits changed, not when a secret or the state did.
      load={{ isPending: query.isPending, isError: query.isError, dataUpdatedAt: formVersion(account) }}
      entity={account}
      loadFailed={query.isSuccess ? adminStrings.serviceAccounts.notFound : undefined}
      title={(shown) => shown.name}
      formId="service-account"
      save={(shown, values: ServiceAccountValues) => update.mutateAsync({ id: shown.id, ...values })}
      saved={adminStrings.serviceAccounts.saved}
      failed={errorMessage}
      maxWidth={880}
      below={(shown) => (
        <Stack spacing={3}>
          <SecretsSection account={shown} />
          <PublicKeySection account={shown} />
          <StateSection account={shown} />
        </Stack>
      )}
    >
      {(shown, form) => (
        <ServiceAccountForm
          {...form}
          initial={{
            name: shown.name,
            description: shown.description,
            scopes: shown.scopes,
            ownerId: shown.ownerId,
          }}
        />
      )}
    </EditPage>
  );
}
