import { Alert, Button, Link, Typography } from '@mui/material';
import { useState, type ChangeEvent, type SubmitEvent } from 'react';
import { Link as RouterLink } from 'react-router';

import { paths } from '@/config/paths';
import { firstSignInStrings } from '@/lib/first-sign-in-strings';
import { postRest } from '@/lib/rest';

import { AuthForm, Field } from './auth-form';
import { useChooseFirstPassword, type Status } from './first-password';

const text = firstSignInStrings.welcome;

/**
 * An invitation's page (`/first-sign-in?token=…&login=…`, issue 39.3): the person chooses
 * their first password (the token is a one-time token as a reset link's is, so the reset's
 * call takes it) and is signed in with it.
 */
export function WelcomeForm({ token, login }: { token: string; login: string }) {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [status, setStatus] = useState<Status>(
    token === '' ? { kind: 'error', message: text.noToken } : { kind: 'idle' },
  );
  const choose = useChooseFirstPassword(setStatus);

  const edit = (set: (value: string) => void) => (event: ChangeEvent<HTMLInputElement>) => {
    set(event.target.value);
    if (status.kind === 'error' && token !== '') setStatus({ kind: 'idle' });
  };

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    await choose(
      login,
      password,
      repeat,
      () => postRest<null>('/api/auth/reset-password', { token, password }),
      // A used, expired or unknown link: said in the invitation's words, not the reset's.
      (refused) => (refused.status === 409 ? text.invalid : refused.message),
    );
  };

  const locked = token === '' || status.kind === 'pending';

  return (
    <AuthForm heading={text.heading} intro={text.intro} onSubmit={submit}>
      {login !== '' && <Typography sx={{ fontWeight: 600 }}>{text.login(login)}</Typography>}
      <Field
        label={text.passwordLabel}
        type="password"
        value={password}
        onChange={edit(setPassword)}
        disabled={locked}
        autoComplete="new-password"
        autoFocus
      />
      <Field
        label={text.repeatLabel}
        type="password"
        value={repeat}
        onChange={edit(setRepeat)}
        disabled={locked}
        autoComplete="new-password"
      />
      {status.kind === 'error' && <Alert severity="error">{status.message}</Alert>}
      <Button
        type="submit"
        variant="contained"
        size="large"
        loading={status.kind === 'pending'}
        disabled={token === ''}
      >
        {text.submit}
      </Button>
      <Link component={RouterLink} to={paths.login} sx={{ alignSelf: 'center' }}>
        {firstSignInStrings.backToLogin}
      </Link>
    </AuthForm>
  );
}
