import { Box } from '@mui/material';
import { useEffect, useState } from 'react';

import { callRest } from '@/lib/authorized-fetch';
import { getSession } from '@/lib/session/session';

import { ClearanceBanner, type ClearanceView } from './clearance-banner';

// What a signed-in phone adds to the public page loads as one module: this one.
export { PublicUnit } from './public-unit';

/** GetClearance as REST answers it. */
type ClearanceAnswer = {
  cleared: boolean;
  missingCourses: { id: number; title: string }[];
  validUntil: string | null;
};

/**
 * On the public instruction page, the reader's clearance for the model when the phone is
 * signed in; nothing when it is not, when the model is not one they see, or when the answer
 * does not come (the instruction is what the page is for). REST with the session's token, no
 * grpc-web: one GET, and a POST when they take a course it requires.
 */
export function PublicClearance({ modelId }: { modelId: bigint }) {
  const [view, setView] = useState<ClearanceView>();

  useEffect(() => {
    if (getSession() === null) return;
    let current = true;
    callRest<ClearanceAnswer>(
      `/api/environment-model/get-clearance?environmentModelId=${String(modelId)}`,
    ).then(
      (answer) => {
        if (!current) return;
        setView({
          cleared: answer.cleared,
          missingCourses: answer.missingCourses,
          validUntil: answer.validUntil ? new Date(answer.validUntil) : undefined,
        });
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [modelId]);

  return view ? (
    <Box sx={{ mb: 2 }}>
      <ClearanceBanner
        clearance={view}
        enroll={(courseId) => callRest('/api/course/enroll-for-clearance', { courseId: Number(courseId) })}
      />
    </Box>
  ) : null;
}
