import type { Params } from 'react-router';

import { entityCrumb } from '@/lib/breadcrumbs';
import { parseId } from '@/lib/ids';

import { useDepartment } from '../api/equipment-queries';
import { useModelHere } from '../api/model-here';

/** The breadcrumb of environments/:departmentId: the department's title. */
export function DepartmentCrumb({ params }: { params: Params }) {
  const id = parseId(params.departmentId);
  const query = useDepartment(id);
  return entityCrumb(query.data?.department?.title, id === undefined || query.isError);
}

/** The breadcrumb of environment/:id: the model's name, when its page shows it. */
export function ModelCrumb({ params }: { params: Params }) {
  const here = useModelHere(parseId(params.departmentId), parseId(params.id));
  return entityCrumb(here.state === 'found' ? here.model.name : undefined, here.state !== 'loading');
}
