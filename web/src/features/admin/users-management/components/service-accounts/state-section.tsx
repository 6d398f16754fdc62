import { Button, Stack, Typography } from '@mui/material';
import { useState } from 'react';

import { adminStrings } from '@/lib/admin-strings';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notifications';

import { useSetActive, type ServiceAccount } from '../../api/service-account-queries';
import { ConfirmDialog } from './confirm-dialog';
import { Section } from './section';
import { StateChip } from './state-chip';

const text = adminStrings.serviceAccounts.state;

/** Whether the system may get tokens: disabled and enabled again, each after a question. */
export function StateSection({ account }: { account: ServiceAccount }) {
  const setActive = useSetActive();
  const { active } = account;
  // The change asked about, kept while its dialog closes over the refreshed state.
  const [asking, setAsking] = useState<{ open: boolean; disable: boolean }>({ open: false, disable: active });
  const { disable } = asking;
  const close = () => setAsking((current) => ({ ...current, open: false }));

  const confirm = () =>
    setActive.mutate(
      { id: account.id, active: !disable },
      {
        onSuccess: () => notify.success(disable ? text.disabledDone : text.enabledDone),
        onError: (error) => notify.error(errorMessage(error)),
        onSettled: close,
      },
    );

  return (
    <Section title={text.title}>
      <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center' }}>
        <StateChip active={active} />
        <Typography variant="body2">{active ? text.activeText : text.disabledText}</Typography>
      </Stack>
      <Stack direction="row">
        <Button
          variant="outlined"
          color={active ? 'error' : 'primary'}
          onClick={() => setAsking({ open: true, disable: active })}
        >
          {active ? text.disable : text.enable}
        </Button>
      </Stack>
      <ConfirmDialog
        open={asking.open}
        title={disable ? text.disableTitle : text.enableTitle}
        confirmLabel={disable ? text.disable : text.enable}
        danger={disable}
        pending={setActive.isPending}
        onConfirm={confirm}
        onCancel={close}
      >
        <p>{disable ? text.disableText : text.enableText}</p>
      </ConfirmDialog>
    </Section>
  );
}
