import { Alert, Button, Paper, Stack, TextField, Typography } from '@mui/material';
import { useEffect, useState, type ChangeEvent, type SubmitEvent } from 'react';
import { useNavigate } from 'react-router';

import { StandalonePage } from '@/components/standalone-page';
import { paths } from '@/config/paths';
import { signIn } from '@/lib/session/auth-api';
import { strings } from '@/lib/strings';

/** Spec §9: how long the success alert shows before home opens. */
export const redirectDelayMs = 1500;

type Status =
  { kind: 'idle' } | { kind: 'pending' } | { kind: 'success' } | { kind: 'error'; message: string };

export function LoginPage() {
  const navigate = useNavigate();
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [status, setStatus] = useState<Status>({ kind: 'idle' });

  useEffect(() => {
    if (status.kind !== 'success') return;
    const timer = setTimeout(() => void navigate(paths.home), redirectDelayMs);
    return () => clearTimeout(timer);
  }, [status.kind, navigate]);

  // Typing in either field clears the error alert (spec §2).
  const edit = (set: (value: string) => void) => (event: ChangeEvent<HTMLInputElement>) => {
    set(event.target.value);
    if (status.kind === 'error') setStatus({ kind: 'idle' });
  };

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setStatus({ kind: 'pending' });
    const result = await signIn(login, password);
    setStatus(result.ok ? { kind: 'success' } : { kind: 'error', message: result.message });
  };

  const locked = status.kind === 'pending' || status.kind === 'success';

  return (
    <StandalonePage>
      <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 } }}>
        <Stack component="form" spacing={3} onSubmit={(event) => void submit(event)}>
          <div>
            <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }} gutterBottom>
              {strings.login.heading}
            </Typography>
            <Typography sx={{ color: 'text.secondary' }}>{strings.login.intro}</Typography>
          </div>
          {/* Required at browser level only (spec §5); no asterisks on a two-field form. */}
          <TextField
            label={strings.login.loginLabel}
            placeholder={strings.login.loginPlaceholder}
            value={login}
            onChange={edit(setLogin)}
            disabled={locked}
            autoComplete="username"
            autoFocus
            fullWidth
            slotProps={{ inputLabel: { shrink: true }, htmlInput: { required: true } }}
          />
          <TextField
            label={strings.login.passwordLabel}
            placeholder={strings.login.passwordPlaceholder}
            type="password"
            value={password}
            onChange={edit(setPassword)}
            disabled={locked}
            autoComplete="current-password"
            fullWidth
            slotProps={{ inputLabel: { shrink: true }, htmlInput: { required: true } }}
          />
          {status.kind === 'success' && <Alert severity="success">{strings.login.success}</Alert>}
          {status.kind === 'error' && <Alert severity="error">{status.message}</Alert>}
          <Button
            type="submit"
            variant="contained"
            size="large"
            loading={status.kind === 'pending'}
            disabled={status.kind === 'success'}
          >
            {strings.login.submit}
          </Button>
        </Stack>
      </Paper>
    </StandalonePage>
  );
}
