import type { Params } from 'react-router';

import { parseId } from '@/lib/ids';
import { crumbName } from '@/lib/person-name';
import { strings } from '@/lib/strings';

import { useUser } from '../../api/auth-queries';

/** The breadcrumb of /admin-users/:adminUserId: name, surname, patronymic (spec §2). */
export function UserCrumb({ params }: { params: Params }) {
  const userId = parseId(params.adminUserId);
  const query = useUser(userId);
  const user = query.data?.user;
  if (user) return crumbName(user);
  return userId === undefined || query.isError ? params.adminUserId : strings.common.loading;
}
