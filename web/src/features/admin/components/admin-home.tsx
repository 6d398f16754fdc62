import { Button, Paper, Stack, Typography } from '@mui/material';
import { useMutation } from '@tanstack/react-query';

import { adminStrings } from '@/lib/admin-strings';
import { callRest } from '@/lib/authorized-fetch';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notifications';
import { hasAnyRight, Right } from '@/lib/session/rights';
import { strings } from '@/lib/strings';

/** How the run started: it goes on in the background (the counts of the reply stay 0). */
type DigestStart = { alreadyRunning: boolean };

/** /admin's index: the sections are the menu above; the digests can be sent from here. */
export function AdminHome() {
  const send = useMutation({
    mutationFn: () => callRest<DigestStart>('/api/notification/send-digests-now', {}),
    onSuccess: ({ alreadyRunning }) =>
      notify.success(
        alreadyRunning ? strings.notifications.digestsAlreadyRunning : strings.notifications.digestsStarted,
      ),
    onError: (error) => notify.error(errorMessage(error)),
  });
  const maySend = hasAnyRight([Right.UserManagement, Right.EducationManagement]);
  return (
    <Stack spacing={3}>
      <Typography sx={{ color: 'text.secondary' }}>{adminStrings.chooseSection}</Typography>
      {maySend && (
        <Paper variant="outlined" sx={{ p: 2.5, maxWidth: 640 }}>
          <Typography sx={{ mb: 1.5, color: 'text.secondary' }}>
            {strings.notifications.sendDigestsHint}
          </Typography>
          <Button variant="contained" onClick={() => send.mutate()} disabled={send.isPending}>
            {strings.notifications.sendDigests}
          </Button>
        </Paper>
      )}
    </Stack>
  );
}
