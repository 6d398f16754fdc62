import { Alert, Button, Link } from '@mui/material';
import { useState, type SubmitEvent } from 'react';
import { Link as RouterLink } from 'react-router';

import { paths } from '@/config/paths';
import { passwordResetStrings as text } from '@/lib/password-reset-strings';
import { postRest } from '@/lib/rest';

import { AuthForm, Field } from './auth-form';

/** Said when directory sign-in is on, to every asker alike (`null` otherwise). */
type DirectoryNotice = { directorySignIn?: boolean; directoryResetUrl?: string } | null;

type Status =
  | { kind: 'idle' }
  | { kind: 'pending' }
  | { kind: 'sent'; directory: DirectoryNotice }
  | { kind: 'error'; message: string };

/** «Забыли пароль?»: asks for a link by e-mail; the answer is the same for any login. */
export function ForgotPasswordPage() {
  const [login, setLogin] = useState('');
  const [status, setStatus] = useState<Status>({ kind: 'idle' });

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setStatus({ kind: 'pending' });
    const result = await postRest<DirectoryNotice>('/api/auth/request-password-reset', { login });
    setStatus(
      result.ok ? { kind: 'sent', directory: result.data } : { kind: 'error', message: result.message },
    );
  };

  return (
    <AuthForm heading={text.forgot.heading} intro={text.forgot.intro} onSubmit={submit}>
      <Field
        label={text.forgot.loginLabel}
        placeholder={text.forgot.loginPlaceholder}
        value={login}
        onChange={(event) => setLogin(event.target.value)}
        disabled={status.kind === 'pending' || status.kind === 'sent'}
        autoComplete="username"
        autoFocus
      />
      {status.kind === 'sent' && <Alert severity="success">{text.forgot.sent}</Alert>}
      {status.kind === 'sent' && status.directory?.directorySignIn && (
        <Alert severity="info">
          {text.forgot.directory}
          {status.directory.directoryResetUrl ? (
            <Link href={status.directory.directoryResetUrl} target="_blank" rel="noopener noreferrer">
              {text.forgot.directoryLink}
            </Link>
          ) : (
            text.forgot.directoryNoLink
          )}
        </Alert>
      )}
      {status.kind === 'error' && <Alert severity="error">{status.message}</Alert>}
      {status.kind !== 'sent' && (
        <Button type="submit" variant="contained" size="large" loading={status.kind === 'pending'}>
          {text.forgot.submit}
        </Button>
      )}
      <Link component={RouterLink} to={paths.login} sx={{ alignSelf: 'center' }}>
        {text.backToLogin}
      </Link>
    </AuthForm>
  );
}
