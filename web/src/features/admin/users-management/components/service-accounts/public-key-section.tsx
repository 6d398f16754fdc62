import { Button, Stack, TextField, Typography } from '@mui/material';
import { useState } from 'react';

import { adminStrings } from '@/lib/admin-strings';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notifications';
import { DraftContext, useDraftTracker, useUnsavedChanges } from '@/lib/unsaved';
import { useFormState } from '@/lib/use-form-state';

import { useSetPublicKey, type ServiceAccount } from '../../api/service-account-queries';
import { ConfirmDialog } from './confirm-dialog';
import { Section } from './section';

const text = adminStrings.serviceAccounts.publicKey;

type KeyFormProps = { id: string; disabled: boolean; onSubmit: (publicKey: string) => void };

const validate = ({ publicKey }: { publicKey: string }) => ({
  publicKey: publicKey.trim() === '' ? text.required : undefined,
});

function KeyForm({ id, disabled, onSubmit }: KeyFormProps) {
  const { submit, textField, formRef } = useFormState({ initial: { publicKey: '' }, validate });
  return (
    <Stack
      component="form"
      ref={formRef}
      id={id}
      noValidate
      spacing={2}
      onSubmit={submit(({ publicKey }) => onSubmit(publicKey.trim()))}
    >
      <TextField
        label={text.label}
        {...textField('publicKey')}
        placeholder={text.placeholder}
        disabled={disabled}
        multiline
        minRows={4}
        fullWidth
        slotProps={{ htmlInput: { spellCheck: false, sx: { fontFamily: 'monospace', fontSize: '0.85rem' } } }}
      />
    </Stack>
  );
}

/**
 * The public key of private_key_jwt (RFC 7523): pasted as PEM, replaced, or removed. The
 * server never sends a key back, only whether one is registered.
 */
export function PublicKeySection({ account }: { account: ServiceAccount }) {
  const setKey = useSetPublicKey();
  const draft = useDraftTracker();
  useUnsavedChanges(draft.dirty && !setKey.isPending);
  // A saved key empties the field: the next one starts afresh.
  const [formKey, setFormKey] = useState(0);
  const [askingRemove, setAskingRemove] = useState(false);
  const formId = `public-key-${account.id}`;

  const send = (publicKey: string) =>
    setKey.mutate(
      { id: account.id, publicKey },
      {
        onSuccess: () => {
          notify.success(publicKey === '' ? text.removed : text.saved);
          setFormKey((key) => key + 1);
        },
        onError: (error) => notify.error(errorMessage(error)),
        onSettled: () => setAskingRemove(false),
      },
    );

  return (
    <Section title={text.title}>
      <Typography variant="body2" sx={{ color: 'text.secondary' }}>
        {text.hint}
      </Typography>
      <Typography>{account.hasPublicKey ? text.registered : text.missing}</Typography>
      <DraftContext value={draft.report}>
        <KeyForm key={formKey} id={formId} disabled={setKey.isPending} onSubmit={send} />
      </DraftContext>
      <Stack direction="row" spacing={1.5} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
        <Button type="submit" form={formId} variant="outlined" loading={setKey.isPending && !askingRemove}>
          {text.save}
        </Button>
        {account.hasPublicKey && (
          <Button color="error" onClick={() => setAskingRemove(true)} disabled={setKey.isPending}>
            {text.remove}
          </Button>
        )}
      </Stack>
      <ConfirmDialog
        open={askingRemove}
        title={text.removeTitle}
        confirmLabel={text.remove}
        danger
        pending={setKey.isPending}
        onConfirm={() => send('')}
        onCancel={() => setAskingRemove(false)}
      >
        <p>{text.removeText}</p>
      </ConfirmDialog>
    </Section>
  );
}
