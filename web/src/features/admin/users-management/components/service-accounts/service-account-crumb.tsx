import type { Params } from 'react-router';

import { entityCrumb } from '@/lib/breadcrumbs';
import { parseId } from '@/lib/ids';

import { useServiceAccount } from '../../api/service-account-queries';

/** The breadcrumb of /service-accounts/:serviceAccountId: the system's name. */
export function ServiceAccountCrumb({ params }: { params: Params }) {
  const accountId = parseId(params.serviceAccountId);
  const { query, account } = useServiceAccount(accountId);
  return entityCrumb(
    account?.name,
    accountId === undefined || query.isError || (query.isSuccess && !account),
  );
}
