import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, Typography } from '@mui/material';
import { useState } from 'react';

import type { InviteDepartmentResponse } from '@/gen/portal/auth/v1/auth_pb';
import { errorMessage } from '@/lib/errors';
import { firstSignInStrings } from '@/lib/first-sign-in-strings';
import { notify } from '@/lib/notifications';

import { useInviteDepartment } from '../../api/auth-queries';

const text = firstSignInStrings.admin;

/**
 * «Пригласить всех без пароля» (issue 39.3): an invitation to every member with an e-mail
 * address and no password yet; the answer says how many went and who was skipped and why.
 */
export function InviteDepartment({ departmentId }: { departmentId: bigint }) {
  const invite = useInviteDepartment();
  const [answer, setAnswer] = useState<InviteDepartmentResponse | null>(null);
  const send = () =>
    invite.mutate(
      { departmentId },
      { onSuccess: setAnswer, onError: (error) => notify.error(errorMessage(error)) },
    );
  return (
    <Stack spacing={1} sx={{ mt: 3, alignItems: 'flex-start' }}>
      <Typography variant="body2" sx={{ color: 'text.secondary' }}>
        {text.inviteDepartmentHint}
      </Typography>
      <Button variant="outlined" onClick={send} loading={invite.isPending}>
        {text.inviteDepartment}
      </Button>
      <Dialog open={answer !== null} onClose={() => setAnswer(null)} fullWidth maxWidth="sm">
        <DialogTitle>{text.invitedTitle}</DialogTitle>
        <DialogContent>
          <Typography gutterBottom>{text.sent(answer?.sent ?? 0)}</Typography>
          {answer && answer.skipped.length > 0 && (
            <>
              <Typography sx={{ fontWeight: 600, mt: 2 }}>{text.skippedTitle}</Typography>
              <ul>
                {answer.skipped.map((person) => (
                  <li key={String(person.userId)}>
                    {person.fullName} ({person.login}) — {person.message}
                  </li>
                ))}
              </ul>
            </>
          )}
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setAnswer(null)}>{text.close}</Button>
        </DialogActions>
      </Dialog>
    </Stack>
  );
}
