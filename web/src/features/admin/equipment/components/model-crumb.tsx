import type { Params } from 'react-router';

import { parseId } from '@/lib/ids';
import { strings } from '@/lib/strings';

import { useModel } from '../api/wiki-queries';

/** The breadcrumb of equipment-models/:adminEnvironmentModelId: the model's name. */
export function ModelCrumb({ params }: { params: Params }) {
  const query = useModel(parseId(params.adminEnvironmentModelId));
  return (
    query.data?.environmentModel?.name ??
    (query.isError ? params.adminEnvironmentModelId : strings.common.loading)
  );
}
