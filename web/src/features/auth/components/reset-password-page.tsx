import { Alert, Button, Link } from '@mui/material';
import { useState, type ChangeEvent, type SubmitEvent } from 'react';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';

import { paths } from '@/config/paths';
import { passwordResetStrings as text } from '@/lib/password-reset-strings';
import { postRest } from '@/lib/rest';

import { AuthForm, Field } from './auth-form';

type Status = { kind: 'idle' } | { kind: 'pending' } | { kind: 'error'; message: string };

/** The mailed link's page: a new password twice; once saved, the sign-in page says so. */
export function ResetPasswordPage() {
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const token = search.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [status, setStatus] = useState<Status>(
    token === '' ? { kind: 'error', message: text.reset.noToken } : { kind: 'idle' },
  );

  const edit = (set: (value: string) => void) => (event: ChangeEvent<HTMLInputElement>) => {
    set(event.target.value);
    if (status.kind === 'error' && token !== '') setStatus({ kind: 'idle' });
  };

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (password !== repeat) {
      setStatus({ kind: 'error', message: text.reset.mismatch });
      return;
    }
    setStatus({ kind: 'pending' });
    const result = await postRest<null>('/api/auth/reset-password', { token, password });
    if (result.ok) {
      void navigate(paths.login, { replace: true, state: { passwordReset: true } });
    } else {
      setStatus({ kind: 'error', message: result.message });
    }
  };

  const locked = token === '' || status.kind === 'pending';

  return (
    <AuthForm heading={text.reset.heading} intro={text.reset.intro} onSubmit={submit}>
      <Field
        label={text.reset.passwordLabel}
        type="password"
        value={password}
        onChange={edit(setPassword)}
        disabled={locked}
        autoComplete="new-password"
        autoFocus
      />
      <Field
        label={text.reset.repeatLabel}
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
        {text.reset.submit}
      </Button>
      <Link component={RouterLink} to={paths.forgotPassword} sx={{ alignSelf: 'center' }}>
        {text.requestAgain}
      </Link>
    </AuthForm>
  );
}
