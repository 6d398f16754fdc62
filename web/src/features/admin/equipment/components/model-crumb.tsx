import type { Params } from 'react-router';

import { entityCrumb } from '@/lib/breadcrumbs';
import { parseId } from '@/lib/ids';

import { useModel } from '../api/wiki-queries';

/** The breadcrumb of equipment-models/:adminEnvironmentModelId: the model's name. */
export function ModelCrumb({ params }: { params: Params }) {
  const query = useModel(parseId(params.adminEnvironmentModelId));
  return entityCrumb(query.data?.environmentModel?.name, query.isError);
}
