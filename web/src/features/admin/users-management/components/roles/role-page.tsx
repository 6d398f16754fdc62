import { useParams } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { UnderConstruction } from '@/components/under-construction';
import { parseId } from '@/lib/ids';
import { rightLabel } from '@/lib/session/rights';

import { useRight } from '../../api/auth-queries';

/** Spec §2: a placeholder page that names the right. */
export function RolePage() {
  const { right, isPending } = useRight(parseId(useParams().adminRoleId));
  if (isPending) return <Loading />;
  if (!right) return <LoadError />;
  return <UnderConstruction title={rightLabel(right.name)} />;
}
