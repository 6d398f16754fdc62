import type { Params } from 'react-router';

import { entityCrumb } from '@/lib/breadcrumbs';
import { parseId } from '@/lib/ids';

import { useFullTest } from '../../api/education-queries';

/** The breadcrumb of tests/:adminTestId: the test's title. */
export function TestCrumb({ params }: { params: Params }) {
  const testId = parseId(params.adminTestId);
  const query = useFullTest(testId);
  return entityCrumb(query.data?.test?.title, testId === undefined || query.isError);
}
