import type { UseQueryResult } from '@tanstack/react-query';
import type { Params } from 'react-router';

import { equipmentStrings } from '@/lib/equipment-strings';
import { isClientError } from '@/lib/errors';
import { parseId } from '@/lib/ids';
import { strings } from '@/lib/strings';

import { useDepartment, useModel } from '../api/equipment-queries';

/** A breadcrumb's title: the entity's name, 'Не найдено' when it is refused, else the id or 'Загрузка...'. */
function title(id: bigint | undefined, query: UseQueryResult, name: string | undefined, raw?: string) {
  if (name !== undefined) return name;
  if (id === undefined || (query.isError && isClientError(query.error)))
    return equipmentStrings.notFoundCrumb;
  return query.isError ? raw : strings.common.loading;
}

/** The breadcrumb of environments/:departmentId: the department's title. */
export function DepartmentCrumb({ params }: { params: Params }) {
  const id = parseId(params.departmentId);
  const query = useDepartment(id);
  return title(id, query, query.data?.department?.title, params.departmentId);
}

/** The breadcrumb of environment/:id: the model's name. */
export function ModelCrumb({ params }: { params: Params }) {
  const id = parseId(params.id);
  const query = useModel(id);
  return title(id, query, query.data?.environmentModel?.name, params.id);
}
