import type { Params } from 'react-router';

import { parseId } from '@/lib/ids';
import { strings } from '@/lib/strings';

import { useDepartment, useModel } from '../api/equipment-queries';

/** The breadcrumb of environments/:departmentId: the department's title. */
export function DepartmentCrumb({ params }: { params: Params }) {
  const query = useDepartment(parseId(params.departmentId));
  return query.data?.department?.title ?? (query.isError ? params.departmentId : strings.common.loading);
}

/** The breadcrumb of environment/:id: the model's name. */
export function ModelCrumb({ params }: { params: Params }) {
  const query = useModel(parseId(params.id));
  return query.data?.environmentModel?.name ?? (query.isError ? params.id : strings.common.loading);
}
