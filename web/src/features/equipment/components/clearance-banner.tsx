import { Alert, AlertTitle, Box, Button, List, ListItem, Typography } from '@mui/material';
import { useState } from 'react';
import { useNavigate } from 'react-router';

import { paths } from '@/config/paths';
import { formatDate, localDay } from '@/lib/dates';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';

const text = equipmentStrings.clearance;

/** A person's clearance as both its sources give it (grpc-web's message, REST's JSON). */
export type ClearanceView = {
  cleared: boolean;
  missingCourses: { id: bigint | number; title: string }[];
  /** When the clearance lapses; none when it never does. */
  validUntil?: Date;
};

/**
 * Enrols the reader in a course that clears them (EducationService.EnrollForClearance over
 * grpc-web or REST, as the page that shows the banner talks to the server); a course already
 * theirs is answered as it is.
 */
export type Enroll = (courseId: bigint) => Promise<unknown>;

/**
 * «Вы допущены к работе» (until when, if it lapses); or, plainly, «Вы не допущены к работе с
 * этим аппаратом» and what to do: each course the reader still has to pass, with a button that
 * makes it theirs (issue 37: nobody may have assigned it to them) and opens it.
 */
export function ClearanceBanner({ clearance, enroll }: { clearance: ClearanceView; enroll: Enroll }) {
  if (clearance.cleared) {
    const until = clearance.validUntil && formatDate(localDay(clearance.validUntil));
    return (
      <Alert severity="success" aria-label={text.label}>
        {until ? text.clearedUntil(until) : text.cleared}
      </Alert>
    );
  }
  return (
    <Alert severity="warning" aria-label={text.label}>
      <AlertTitle sx={{ fontWeight: 600 }}>{text.notCleared}</AlertTitle>
      <Typography variant="body2">{text.toBeCleared}</Typography>
      <List dense disablePadding>
        {clearance.missingCourses.map((course) => (
          <MissingCourse key={String(course.id)} course={course} enroll={enroll} />
        ))}
      </List>
    </Alert>
  );
}

function MissingCourse({
  course,
  enroll,
}: {
  course: ClearanceView['missingCourses'][number];
  enroll: Enroll;
}) {
  const navigate = useNavigate();
  const [pending, setPending] = useState(false);
  const [failed, setFailed] = useState<string>();
  const id = BigInt(course.id);

  const take = () => {
    setPending(true);
    setFailed(undefined);
    enroll(id).then(
      () => void navigate(`${paths.courses}/${String(id)}`),
      (error: unknown) => {
        setPending(false);
        setFailed(errorMessage(error));
      },
    );
  };

  return (
    <ListItem disableGutters sx={{ display: 'block', py: 0.75 }}>
      <Box
        sx={{
          display: 'flex',
          flexWrap: 'wrap',
          alignItems: 'center',
          columnGap: 2,
          rowGap: 1,
        }}
      >
        <Typography sx={{ fontWeight: 500, overflowWrap: 'anywhere' }}>{course.title}</Typography>
        <Button
          variant="contained"
          size="small"
          onClick={take}
          loading={pending}
          aria-label={text.takeCourseNamed(course.title)}
        >
          {text.takeCourse}
        </Button>
      </Box>
      {failed && (
        <Typography variant="body2" role="alert" sx={{ color: 'error.main', mt: 0.5 }}>
          {failed}
        </Typography>
      )}
    </ListItem>
  );
}
