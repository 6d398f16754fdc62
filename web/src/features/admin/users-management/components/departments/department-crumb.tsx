import type { Params } from 'react-router';

import { entityCrumb } from '@/lib/breadcrumbs';
import { parseId } from '@/lib/ids';

import { useDepartmentWithUsers } from '../../api/auth-queries';

/** The breadcrumb of /admin-departments/:adminDepartmentId: the department's title. */
export function DepartmentCrumb({ params }: { params: Params }) {
  const departmentId = parseId(params.adminDepartmentId);
  const query = useDepartmentWithUsers(departmentId);
  return entityCrumb(query.data?.department?.title, departmentId === undefined || query.isError);
}
