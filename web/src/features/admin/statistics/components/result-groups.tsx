import { Chip, Paper, Stack, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';

import { DataTable } from '@/components/data-table';
import { adminStrings } from '@/lib/admin-strings';
import { formatInstant } from '@/lib/dates';

import type { TestGroup } from '../utils/group-results';

const text = adminStrings.statistics;

/** Spec §2: per test, per person, each attempt with points, passed (Да/Нет) and its date. */
export function ResultGroups({ groups }: { groups: TestGroup[] }) {
  return (
    <Stack spacing={2}>
      {groups.map((group) => (
        <Paper
          key={group.testId}
          variant="outlined"
          component="section"
          aria-label={group.title}
          sx={{ p: { xs: 2, sm: 2.5 } }}
        >
          <Typography variant="h6" component="h3" sx={{ fontWeight: 600, mb: 1 }}>
            {group.title}
          </Typography>
          <Stack spacing={2}>
            {group.users.map((user) => (
              <div key={user.userId}>
                <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                  <Typography component="h4" sx={{ fontWeight: 600 }}>
                    {user.name}
                  </Typography>
                  <Typography variant="body2" sx={{ color: 'text.secondary' }}>
                    {text.attempts(user.attempts.length)}
                  </Typography>
                </Stack>
                <DataTable label={`${group.title}: ${user.name}`} maxWidth={640}>
                  <TableHead>
                    <TableRow>
                      <TableCell>{text.points}</TableCell>
                      <TableCell>{text.passed}</TableCell>
                      <TableCell>{text.completed}</TableCell>
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {user.attempts.map((attempt) => (
                      <TableRow key={attempt.id}>
                        <TableCell sx={{ whiteSpace: 'nowrap' }}>
                          {attempt.totalPoint} / {attempt.totalPointsPossible}
                        </TableCell>
                        <TableCell>
                          <Chip
                            label={attempt.isPassed ? text.yes : text.no}
                            color={attempt.isPassed ? 'success' : 'default'}
                            size="small"
                            variant={attempt.isPassed ? 'filled' : 'outlined'}
                          />
                        </TableCell>
                        <TableCell sx={{ whiteSpace: 'nowrap' }}>
                          {attempt.dateCompletion ? formatInstant(attempt.dateCompletion) : ''}
                        </TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </DataTable>
              </div>
            ))}
          </Stack>
        </Paper>
      ))}
    </Stack>
  );
}
