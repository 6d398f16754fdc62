import type { Params } from 'react-router';

import { parseId } from '@/lib/ids';
import { rightLabel } from '@/lib/session/rights';
import { strings } from '@/lib/strings';

import { useRight } from '../../api/auth-queries';

/** The breadcrumb of /admin-roles/:adminRoleId: the right's name in Russian. */
export function RoleCrumb({ params }: { params: Params }) {
  const { right, isPending } = useRight(parseId(params.adminRoleId));
  if (right) return rightLabel(right.name);
  return isPending ? strings.common.loading : params.adminRoleId;
}
