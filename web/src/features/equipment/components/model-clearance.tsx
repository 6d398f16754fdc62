import { timestampDate } from '@bufbuild/protobuf/wkt';

import { useClearance, useEnrollForClearance } from '../api/equipment-queries';
import { ClearanceBanner } from './clearance-banner';

/** The reader's clearance for a model, once known (nothing while it loads or if it fails). */
export function ModelClearance({ modelId }: { modelId: bigint }) {
  const query = useClearance(modelId);
  const enroll = useEnrollForClearance();
  if (!query.data) return null;
  const { cleared, missingCourses, validUntil } = query.data;
  return (
    <ClearanceBanner
      clearance={{
        cleared,
        missingCourses,
        validUntil: validUntil && timestampDate(validUntil),
      }}
      enroll={(courseId) => enroll.mutateAsync({ courseId })}
    />
  );
}
