import { Button, Stack, Typography } from '@mui/material';
import { useState } from 'react';

import { adminStrings } from '@/lib/admin-strings';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notifications';

import { useEndUserSessions } from '../../api/auth-queries';
import { ConfirmDialog } from '../service-accounts/confirm-dialog';

const text = adminStrings.userSessions;

/** Signs a person out on every device, after a question (issue 39.5). */
export function EndSessions({ userId, name }: { userId: bigint; name: string }) {
  const end = useEndUserSessions();
  const [asking, setAsking] = useState(false);
  const confirm = () =>
    end.mutate(
      { userId },
      {
        onSuccess: (reply) => notify.success(text.sessionsEnded(reply.ended)),
        onError: (error) => notify.error(errorMessage(error)),
        onSettled: () => setAsking(false),
      },
    );
  return (
    <Stack spacing={1} sx={{ mt: 3, alignItems: 'flex-start' }}>
      <Typography variant="body2" sx={{ color: 'text.secondary' }}>
        {text.endSessionsHint}
      </Typography>
      <Button variant="outlined" color="error" onClick={() => setAsking(true)}>
        {text.endSessions}
      </Button>
      <ConfirmDialog
        open={asking}
        title={text.endSessions}
        confirmLabel={text.endSessions}
        danger
        pending={end.isPending}
        onConfirm={confirm}
        onCancel={() => setAsking(false)}
      >
        <p>{text.endSessionsConfirm(name)}</p>
      </ConfirmDialog>
    </Stack>
  );
}
