import { Alert, Button, Link, Typography } from '@mui/material';
import { useEffect, useState, type ChangeEvent, type SubmitEvent } from 'react';
import { Navigate, Link as RouterLink, useLocation, useNavigate, useSearchParams } from 'react-router';

import { paths } from '@/config/paths';
import { returnPathOf } from '@/lib/session/return-path';
import { useSession } from '@/lib/session/session';
import { resumeSingleSignOn, signIn, singleSignOnName } from '@/lib/session/sign-in';
import { strings } from '@/lib/strings';

import { AuthForm, Field } from './auth-form';

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
  // Arrived from «Забыли пароль?» with a new password set (the reset page says so in its state).
  const passwordReset = (useLocation().state as { passwordReset?: boolean } | null)?.passwordReset === true;
  // Someone already signed in (a bookmark, the back button) goes home; a fresh sign-in
  // stays for its success alert first.
  const [arrivedSignedIn] = useState(useSession() !== null);
  const ssoName = useSsoName();
  // Back from the provider with a refusal: its reason code, said in Russian.
  const ssoError = search.get('sso-error');
  // Back from the provider signed in: the session's cookie is set, its access token not yet.
  const ssoSignedIn = search.get('sso') === 'signed-in';

  useEffect(() => {
    if (!ssoSignedIn) return;
    void resumeSingleSignOn().then((ok) =>
      setStatus(ok ? { kind: 'success' } : { kind: 'error', message: strings.login.ssoFailed }),
    );
  }, [ssoSignedIn]);

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
    if (!result.ok && 'mfaToken' in result) {
      // The second step: its token travels in the page's state, never in the address.
      await navigate(paths.loginCode, { state: { mfaToken: result.mfaToken, next: destination } });
      return;
    }
    setStatus(result.ok ? { kind: 'success' } : { kind: 'error', message: result.message });
  };

  if (arrivedSignedIn) return <Navigate to={destination} replace />;

  const locked = status.kind === 'pending' || status.kind === 'success';

  return (
    <AuthForm heading={strings.login.heading} intro={strings.login.intro} onSubmit={submit}>
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
      {passwordReset && status.kind === 'idle' && (
        <Alert severity="success">{strings.login.passwordReset}</Alert>
      )}
      {status.kind === 'success' && <Alert severity="success">{strings.login.success}</Alert>}
      {status.kind === 'error' && <Alert severity="error">{status.message}</Alert>}
      {ssoError !== null && status.kind === 'idle' && (
        <Alert severity="error">{strings.login.ssoErrors[ssoError] ?? strings.login.ssoFailed}</Alert>
      )}
      <Button
        type="submit"
        variant="contained"
        size="large"
        loading={status.kind === 'pending'}
        disabled={status.kind === 'success'}
      >
        {strings.login.submit}
      </Button>
      {ssoName && (
        <>
          <Typography variant="body2" align="center" color="text.secondary">
            {strings.login.or}
          </Typography>
          <Button
            variant="outlined"
            size="large"
            href={`/api/auth/oidc/start?${new URLSearchParams({ returnTo: destination }).toString()}`}
            disabled={locked}
          >
            {strings.login.sso(ssoName)}
          </Button>
        </>
      )}
      <Link component={RouterLink} to={paths.forgotPassword} sx={{ alignSelf: 'center' }}>
        {strings.login.forgotPassword}
      </Link>
      <Link component={RouterLink} to={paths.firstSignIn} sx={{ alignSelf: 'center' }}>
        {strings.login.firstSignIn}
      </Link>
    </AuthForm>
  );
}

/**
 * The hospital's single sign-on provider's name (issue 39.2), once the server has said it; empty
 * while it has not or when there is none, so the form never waits for it.
 */
function useSsoName(): string {
  const [name, setName] = useState('');
  useEffect(() => {
    let current = true;
    void singleSignOnName().then((name) => {
      if (current) setName(name);
    });
    return () => {
      current = false;
    };
  }, []);
  return name;
}
