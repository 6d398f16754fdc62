import type { Params } from 'react-router';

import { entityCrumb } from '@/lib/breadcrumbs';
import { parseId } from '@/lib/ids';
import { rightLabel } from '@/lib/session/rights';

import { useRight } from '../../api/auth-queries';

/** The breadcrumb of /admin-roles/:adminRoleId: the right's name in Russian. */
export function RoleCrumb({ params }: { params: Params }) {
  const { right, isPending } = useRight(parseId(params.adminRoleId));
  return entityCrumb(right && rightLabel(right.name), !isPending);
}
