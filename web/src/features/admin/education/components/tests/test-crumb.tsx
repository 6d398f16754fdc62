import type { Params } from 'react-router';

import { parseId } from '@/lib/ids';
import { strings } from '@/lib/strings';

import { useFullTest } from '../../api/education-queries';

/** The breadcrumb of tests/:adminTestId: the test's title. */
export function TestCrumb({ params }: { params: Params }) {
  const testId = parseId(params.adminTestId);
  const query = useFullTest(testId);
  const failed = testId === undefined || query.isError;
  return query.data?.test?.title ?? (failed ? params.adminTestId : strings.common.loading);
}
