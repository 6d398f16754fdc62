import { Alert, Link as MuiLink } from '@mui/material';
import { Fragment } from 'react';
import { Link } from 'react-router';

import { paths } from '@/config/paths';
import { formatDate, localDay } from '@/lib/dates';
import { equipmentStrings } from '@/lib/equipment-strings';

const text = equipmentStrings.clearance;

/** A person's clearance as both its sources give it (grpc-web's message, REST's JSON). */
export type ClearanceView = {
  cleared: boolean;
  missingCourses: { id: bigint | number; title: string }[];
  /** When the clearance lapses; none when it never does. */
  validUntil?: Date;
};

/**
 * «Вы допущены к работе» (until when, if it lapses), or «Требуется обучение: …» naming each
 * course the reader still has to pass, each a link to the course.
 */
export function ClearanceBanner({ clearance }: { clearance: ClearanceView }) {
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
      {text.required}
      {clearance.missingCourses.map((course, index) => (
        <Fragment key={String(course.id)}>
          {index > 0 && ', '}
          <MuiLink component={Link} to={`${paths.courses}/${String(course.id)}`}>
            {course.title}
          </MuiLink>
        </Fragment>
      ))}
    </Alert>
  );
}
