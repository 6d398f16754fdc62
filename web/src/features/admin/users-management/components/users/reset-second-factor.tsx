import { Button, Stack, Typography } from '@mui/material';
import { useState } from 'react';

import { errorMessage } from '@/lib/errors';
import { mfaStrings } from '@/lib/mfa-strings';
import { notify } from '@/lib/notifications';

import { useResetUserMfa } from '../../api/auth-queries';
import { ConfirmDialog } from '../service-accounts/confirm-dialog';

const text = mfaStrings.admin;

/** Takes away a person's second factor after a question (issue 39.4): a lost phone. */
export function ResetSecondFactor({ userId, name }: { userId: bigint; name: string }) {
  const reset = useResetUserMfa();
  const [asking, setAsking] = useState(false);
  const confirm = () =>
    reset.mutate(
      { userId },
      {
        onSuccess: (reply) => notify.success(reply.removed ? text.wasReset : text.nothingToReset),
        onError: (error) => notify.error(errorMessage(error)),
        onSettled: () => setAsking(false),
      },
    );
  return (
    <Stack spacing={1} sx={{ mt: 3, alignItems: 'flex-start' }}>
      <Typography variant="body2" sx={{ color: 'text.secondary' }}>
        {text.resetHint}
      </Typography>
      <Button variant="outlined" color="error" onClick={() => setAsking(true)}>
        {text.reset}
      </Button>
      <ConfirmDialog
        open={asking}
        title={text.reset}
        confirmLabel={text.reset}
        danger
        pending={reset.isPending}
        onConfirm={confirm}
        onCancel={() => setAsking(false)}
      >
        <p>{text.resetConfirm(name)}</p>
      </ConfirmDialog>
    </Stack>
  );
}
