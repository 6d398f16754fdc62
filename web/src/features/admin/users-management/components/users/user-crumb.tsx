import type { Params } from 'react-router';

import { entityCrumb } from '@/lib/breadcrumbs';
import { parseId } from '@/lib/ids';
import { crumbName } from '@/lib/person-name';

import { useUser } from '../../api/auth-queries';

/** The breadcrumb of /admin-users/:adminUserId: name, surname, patronymic (spec §2). */
export function UserCrumb({ params }: { params: Params }) {
  const userId = parseId(params.adminUserId);
  const query = useUser(userId);
  const user = query.data?.user;
  return entityCrumb(user && crumbName(user), userId === undefined || query.isError);
}
