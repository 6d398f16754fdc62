import { createConnectQueryKey, useMutation, useQuery } from '@connectrpc/connect-query';
import { Alert, Box, Button, Stack, TextField, Typography } from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
import { errorMessage } from '@/lib/errors';
import { mfaStrings } from '@/lib/mfa-strings';
import { notify } from '@/lib/notifications';
import { qrDataUrl } from '@/lib/qr-data-url';

const text = mfaStrings.cabinet;
const auth = AuthService.method;

/**
 * «Двухэтапный вход» (issue 39.4): connect an authenticator app by QR code (or its key typed in),
 * confirm it with a code, keep the 10 recovery codes shown once; later turn it off (where policy
 * allows) or make new recovery codes, each with a current code.
 */
export function TwoStepSetting() {
  const client = useQueryClient();
  const mine = useQuery(auth.getMyMfa);
  const refresh = () =>
    client.invalidateQueries({
      queryKey: createConnectQueryKey({ schema: auth.getMyMfa, cardinality: 'finite' }),
    });
  const [codes, setCodes] = useState<string[]>([]);
  const [code, setCode] = useState('');
  const failed = (error: Error) => notify.error(errorMessage(error));
  const enrol = useMutation(auth.enrolMfa, { onError: failed });
  const confirm = useMutation(auth.confirmMfa, {
    onSuccess: async (reply) => {
      setCodes(reply.recoveryCodes);
      setCode('');
      enrol.reset();
      notify.success(text.turnedOn);
      await refresh();
    },
    onError: failed,
  });
  const disable = useMutation(auth.disableMfa, {
    onSuccess: async () => {
      setCode('');
      notify.success(text.turnedOff);
      await refresh();
    },
    onError: failed,
  });
  const renew = useMutation(auth.regenerateRecoveryCodes, {
    onSuccess: async (reply) => {
      setCodes(reply.recoveryCodes);
      setCode('');
      await refresh();
    },
    onError: failed,
  });
  const state = mine.data;
  const pending = enrol.data;

  return (
    <Box component="section" aria-labelledby="two-step-title">
      <Typography id="two-step-title" variant="h6" component="h3" sx={{ mt: 4, mb: 0.5 }}>
        {text.title}
      </Typography>
      {mine.isError && <Alert severity="error">{text.loadFailed}</Alert>}
      {codes.length > 0 && <RecoveryCodes codes={codes} onDone={() => setCodes([])} />}
      {state && !state.enabled && !pending && (
        <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
          {state.required && <Alert severity="warning">{text.required}</Alert>}
          <Typography sx={{ color: 'text.secondary' }}>{text.offHint}</Typography>
          <Button variant="contained" loading={enrol.isPending} onClick={() => enrol.mutate({})}>
            {text.enrol}
          </Button>
        </Stack>
      )}
      {pending && (
        <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
          <Typography>{text.scan}</Typography>
          <Box
            component="img"
            src={qrDataUrl(pending.qrPng)}
            alt={text.qrAlt}
            sx={{ width: 220, height: 220 }}
          />
          <TextField
            label={text.secretLabel}
            value={pending.secret}
            slotProps={{ htmlInput: { readOnly: true, style: { fontFamily: 'monospace' } } }}
            sx={{ minWidth: { sm: 420 } }}
            fullWidth
          />
          <CodeField value={code} onChange={setCode} label={text.confirmLabel} />
          <Stack direction="row" spacing={1}>
            <Button variant="contained" loading={confirm.isPending} onClick={() => confirm.mutate({ code })}>
              {text.confirm}
            </Button>
            <Button onClick={() => enrol.reset()}>{text.cancel}</Button>
          </Stack>
        </Stack>
      )}
      {state?.enabled && (
        <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
          <Alert severity="success">
            {text.on} {text.codesLeft(state.recoveryCodesLeft)}
          </Alert>
          <CodeField value={code} onChange={setCode} label={text.codeForAction} />
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1}>
            <Button variant="outlined" loading={renew.isPending} onClick={() => renew.mutate({ code })}>
              {text.newCodes}
            </Button>
            {!state.required && (
              <Button
                variant="outlined"
                color="error"
                loading={disable.isPending}
                onClick={() => disable.mutate({ code })}
              >
                {text.disable}
              </Button>
            )}
          </Stack>
        </Stack>
      )}
    </Box>
  );
}

function CodeField({
  value,
  onChange,
  label,
}: {
  value: string;
  onChange: (v: string) => void;
  label: string;
}) {
  return (
    <TextField
      label={label}
      value={value}
      onChange={(event) => onChange(event.target.value)}
      autoComplete="one-time-code"
      slotProps={{ htmlInput: { inputMode: 'numeric', spellCheck: false } }}
    />
  );
}

/** The recovery codes, shown this once, with a way to copy or print them. */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const copy = async () => {
    await navigator.clipboard.writeText(codes.join('\n'));
    notify.success(text.copied);
  };
  return (
    <Alert severity="warning" sx={{ mb: 2 }}>
      <Typography component="h4" sx={{ fontWeight: 600 }}>
        {text.codesTitle}
      </Typography>
      <Typography sx={{ mb: 1 }}>{text.codesHint}</Typography>
      <Box
        component="ol"
        data-testid="recovery-codes"
        sx={{ fontFamily: 'monospace', columns: { xs: 1, sm: 2 }, pl: 3, m: 0, mb: 1 }}
      >
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </Box>
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
        <Button size="small" onClick={() => void copy()}>
          {text.copy}
        </Button>
        <Button size="small" onClick={() => window.print()}>
          {text.print}
        </Button>
        <Button size="small" variant="contained" onClick={onDone}>
          {text.saved}
        </Button>
      </Stack>
    </Alert>
  );
}
