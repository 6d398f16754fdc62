import {
  Chip,
  Paper,
  Stack,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
  type ChipProps,
} from '@mui/material';

import { DataTable } from '@/components/data-table';
import { Loading, LoadError } from '@/components/load-state';
import type { AssigneeCompliance } from '@/gen/portal/education/v1/education_pb';
import { adminStrings } from '@/lib/admin-strings';
import { formatDate } from '@/lib/dates';
import { strings } from '@/lib/strings';

import { useDepartmentsAndPeople } from '../../../api/people-queries';
import { useCourseCompliance } from '../../api/education-queries';

const text = adminStrings.education.compliance;
const validity = strings.education.validity;

function standing(assignee: AssigneeCompliance): { label: string; color: ChipProps['color'] } {
  if (assignee.isComplete) return { label: text.complete, color: 'success' };
  if (assignee.isOverdue) return { label: text.overdue, color: 'error' };
  if (assignee.isDueSoon) return { label: text.dueSoon, color: 'warning' };
  return { label: text.inProgress, color: 'default' };
}

/**
 * The assignee's pass of a course that must be renewed (issue 24): valid until a day,
 * expiring within 30 days, expired (due again by the renewal deadline) or never done; a
 * course that never expires shows nothing here.
 */
function passState(assignee: AssigneeCompliance): { label: string; color: ChipProps['color'] } | undefined {
  const until = formatDate(assignee.validUntil);
  if (assignee.isExpired) return { label: validity.expired, color: 'error' };
  if (assignee.isExpiring) return { label: validity.expiring(until), color: 'warning' };
  if (assignee.isComplete) return until ? { label: validity.current(until), color: 'success' } : undefined;
  return { label: validity.never, color: 'default' };
}

/** Beyond the spec: who of a course's assignees is overdue or due within 7 days. */
export function CourseCompliance({ courseId }: { courseId: bigint }) {
  const query = useCourseCompliance(courseId);
  const { people } = useDepartmentsAndPeople();

  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <LoadError />;
  else if (query.data.assignees.length === 0) {
    content = <Typography sx={{ color: 'text.secondary' }}>{text.noAssignees}</Typography>;
  } else {
    const { assignees } = query.data;
    const counts = [
      { label: text.overdue, count: assignees.filter((a) => a.isOverdue).length, color: 'error' as const },
      { label: text.dueSoon, count: assignees.filter((a) => a.isDueSoon).length, color: 'warning' as const },
      {
        label: text.complete,
        count: assignees.filter((a) => a.isComplete).length,
        color: 'success' as const,
      },
      {
        label: text.expiring,
        count: assignees.filter((a) => a.isExpiring).length,
        color: 'warning' as const,
      },
      { label: text.expired, count: assignees.filter((a) => a.isExpired).length, color: 'error' as const },
    ];
    content = (
      <Stack spacing={2}>
        <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
          {counts.map(({ label, count, color }) => (
            <Chip
              key={label}
              label={`${label}: ${count}`}
              color={count > 0 ? color : 'default'}
              variant="outlined"
            />
          ))}
        </Stack>
        {assignees[0]?.testsTotal === 0 && (
          <Typography sx={{ color: 'text.secondary' }}>{text.noTests}</Typography>
        )}
        <DataTable label={text.title}>
          <TableHead>
            <TableRow>
              <TableCell>{text.person}</TableCell>
              <TableCell>{text.progress}</TableCell>
              <TableCell>{text.status}</TableCell>
              <TableCell>{text.validity}</TableCell>
              <TableCell>{text.deadline}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {assignees.map((assignee) => {
              const { label, color } = standing(assignee);
              const pass = passState(assignee);
              return (
                <TableRow key={assignee.userId}>
                  <TableCell>
                    {people.get(assignee.userId)?.label ??
                      adminStrings.statistics.unknownPerson(assignee.userId)}
                  </TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>
                    {text.passedOf(assignee.testsPassed, assignee.testsTotal)}
                  </TableCell>
                  <TableCell>
                    <Chip label={label} color={color} size="small" />
                  </TableCell>
                  <TableCell>{pass && <Chip label={pass.label} color={pass.color} size="small" />}</TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDate(assignee.dateDeadline)}</TableCell>
                </TableRow>
              );
            })}
          </TableBody>
        </DataTable>
        <Typography variant="body2" sx={{ color: 'text.secondary' }}>
          {text.asOf(query.data.today)}
        </Typography>
      </Stack>
    );
  }

  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }} component="section" aria-label={text.title}>
      <Typography variant="h6" component="h3" sx={{ fontWeight: 600 }}>
        {text.title}
      </Typography>
      <Typography variant="body2" sx={{ color: 'text.secondary', mb: 2 }}>
        {text.hint}
      </Typography>
      {content}
    </Paper>
  );
}
