import { Alert, Button, Link } from '@mui/material';
import { useState, type ChangeEvent, type SubmitEvent } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';

import { paths } from '@/config/paths';
import { firstSignInStrings } from '@/lib/first-sign-in-strings';
import { postRest } from '@/lib/rest';

import { AuthForm, Field } from './auth-form';
import { useChooseFirstPassword, type Status } from './first-password';
import { WelcomeForm } from './welcome-form';

const text = firstSignInStrings.code;

/**
 * A first sign-in (issue 39.3): an invitation's link (`?token=…&login=…`) opens «Добро
 * пожаловать в портал»; without one, «Первый вход по коду».
 */
export function FirstSignInPage() {
  const [search] = useSearchParams();
  const token = search.get('token');
  if (token !== null) return <WelcomeForm token={token} login={search.get('login') ?? ''} />;
  return <CodeForm />;
}

/** «Первый вход по коду»: login and the printed code, then a first password. */
function CodeForm() {
  const [login, setLogin] = useState('');
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const choose = useChooseFirstPassword(setStatus);

  const edit = (set: (value: string) => void) => (event: ChangeEvent<HTMLInputElement>) => {
    set(event.target.value);
    if (status.kind === 'error') setStatus({ kind: 'idle' });
  };

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    await choose(login.trim(), password, repeat, () =>
      postRest<null>('/api/auth/first-sign-in', { login, code, password }),
    );
  };

  const locked = status.kind === 'pending';

  return (
    <AuthForm heading={text.heading} intro={text.intro} onSubmit={submit}>
      <Field
        label={text.loginLabel}
        value={login}
        onChange={edit(setLogin)}
        disabled={locked}
        autoComplete="username"
        autoFocus
      />
      <Field
        label={text.codeLabel}
        placeholder={text.codePlaceholder}
        value={code}
        onChange={edit(setCode)}
        disabled={locked}
        autoComplete="one-time-code"
        inputProps={{ autoCapitalize: 'characters', spellCheck: false }}
      />
      <Field
        label={text.passwordLabel}
        type="password"
        value={password}
        onChange={edit(setPassword)}
        disabled={locked}
        autoComplete="new-password"
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
      <Button type="submit" variant="contained" size="large" loading={locked}>
        {text.submit}
      </Button>
      <Link component={RouterLink} to={paths.login} sx={{ alignSelf: 'center' }}>
        {firstSignInStrings.backToLogin}
      </Link>
    </AuthForm>
  );
}
