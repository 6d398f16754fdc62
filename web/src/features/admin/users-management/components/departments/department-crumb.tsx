import type { Params } from 'react-router';

import { parseId } from '@/lib/ids';
import { strings } from '@/lib/strings';

import { useDepartmentWithUsers } from '../../api/auth-queries';

/** The breadcrumb of /admin-departments/:adminDepartmentId: the department's title. */
export function DepartmentCrumb({ params }: { params: Params }) {
  const departmentId = parseId(params.adminDepartmentId);
  const query = useDepartmentWithUsers(departmentId);
  const failed = departmentId === undefined || query.isError;
  return query.data?.department?.title ?? (failed ? params.adminDepartmentId : strings.common.loading);
}
