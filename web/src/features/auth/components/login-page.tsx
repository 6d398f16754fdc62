import {
  Alert,
  Button,
  FormControl,
  InputLabel,
  OutlinedInput,
  Paper,
  Stack,
  Typography,
  type OutlinedInputProps,
} from '@mui/material';
import { useEffect, useId, useState, type ChangeEvent, type SubmitEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';

import { StandalonePage } from '@/components/standalone-page';
import { paths } from '@/config/paths';
import { returnPathOf } from '@/lib/session/return-path';
import { useSession } from '@/lib/session/session';
import { signIn } from '@/lib/session/sign-in';
import { strings } from '@/lib/strings';

/**
 * An outlined text field with its label always above the text. Built from its parts
 * rather than `TextField`, which brings its select mode (menus, popovers, modals) along:
 * the sign-in page is the first load of most visits and carries only what it shows.
 */
function Field({ label, ...input }: OutlinedInputProps & { label: string }) {
  const id = useId();
  return (
    <FormControl fullWidth>
      <InputLabel htmlFor={id} shrink>
        {label}
      </InputLabel>
      <OutlinedInput id={id} label={label} notched required {...input} />
    </FormControl>
  );
}

/** Spec §9: how long the success alert shows before home opens. */
export const redirectDelayMs = 1500;

type Status =
  { kind: 'idle' } | { kind: 'pending' } | { kind: 'success' } | { kind: 'error'; message: string };

export function LoginPage() {
  const navigate = useNavigate();
  // A page opened signed out opens after the sign-in (only this portal's own paths); else home.
  const [search] = useSearchParams();
  const destination = returnPathOf(search) ?? paths.home;
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  // Someone already signed in (a bookmark, the back button) goes home; a fresh sign-in
  // stays for its success alert first.
  const [arrivedSignedIn] = useState(useSession() !== null);

  useEffect(() => {
    if (status.kind !== 'success') return;
    const timer = setTimeout(() => void navigate(destination), redirectDelayMs);
    return () => clearTimeout(timer);
  }, [status.kind, navigate, destination]);

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

  if (arrivedSignedIn) return <Navigate to={destination} replace />;

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
          <Field
            label={strings.login.loginLabel}
            placeholder={strings.login.loginPlaceholder}
            value={login}
            onChange={edit(setLogin)}
            disabled={locked}
            autoComplete="username"
            autoFocus
          />
          <Field
            label={strings.login.passwordLabel}
            placeholder={strings.login.passwordPlaceholder}
            type="password"
            value={password}
            onChange={edit(setPassword)}
            disabled={locked}
            autoComplete="current-password"
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
