import { Alert, Button, Link } from '@mui/material';
import { useEffect, useState, type SubmitEvent } from 'react';
import { Navigate, Link as RouterLink, useLocation, useNavigate } from 'react-router';

import { paths } from '@/config/paths';
import { mfaStrings } from '@/lib/mfa-strings';
import { returnPathOf } from '@/lib/session/return-path';
import { finishSignIn } from '@/lib/session/sign-in';

import { AuthForm, Field } from './auth-form';

const text = mfaStrings.step;

/**
 * The second step after single sign-on: the gateway's redirect brings the token in the address's
 * fragment (`#mfa=…&next=…`), which no server sees.
 */
function fromFragment(hash: string): Arrival {
  const fields = new URLSearchParams(hash.replace(/^#/, ''));
  const mfaToken = fields.get('mfa');
  if (!mfaToken) return null;
  return { mfaToken, next: returnPathOf(fields) };
}

type Arrival = { mfaToken?: string; next?: string } | null;

/**
 * A sign-in's second step (issue 39.4): the code of the person's authenticator app, or one of
 * their recovery codes. The first step's token comes in the page's state; without it (a reload,
 * a bookmark) the person signs in again.
 */
export function LoginCodePage() {
  const navigate = useNavigate();
  const location = useLocation();
  const [arrival] = useState(() => (location.state as Arrival) ?? fromFragment(location.hash));

  // The token leaves the address bar (and the history) at once.
  useEffect(() => {
    if (location.hash) void navigate(location.pathname, { replace: true, state: arrival });
  }, [location.hash, location.pathname, navigate, arrival]);
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState('');

  if (!arrival?.mfaToken) return <Navigate to={paths.login} replace />;
  const { mfaToken } = arrival;
  const destination = arrival.next ?? paths.home;

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setPending(true);
    const result = await finishSignIn(mfaToken, code);
    setPending(false);
    if (result.ok) {
      await navigate(destination, { replace: true });
      return;
    }
    setError(result.message);
  };

  const toggle = () => {
    setRecovery(!recovery);
    setCode('');
    setError('');
  };

  return (
    <AuthForm heading={text.heading} intro={recovery ? text.recoveryIntro : text.intro} onSubmit={submit}>
      <Field
        key={recovery ? 'recovery' : 'app'}
        label={recovery ? text.recoveryLabel : text.codeLabel}
        placeholder={recovery ? text.recoveryPlaceholder : text.codePlaceholder}
        value={code}
        onChange={(event) => {
          setCode(event.target.value);
          setError('');
        }}
        disabled={pending}
        autoComplete="one-time-code"
        autoFocus
        inputProps={
          recovery
            ? { autoCapitalize: 'none', spellCheck: false }
            : { inputMode: 'numeric', pattern: '[0-9 ]*', maxLength: 7 }
        }
      />
      {error && <Alert severity="error">{error}</Alert>}
      <Alert severity="info">{text.trusted}</Alert>
      <Button type="submit" variant="contained" size="large" loading={pending}>
        {text.submit}
      </Button>
      <Link component="button" type="button" onClick={toggle} sx={{ alignSelf: 'center' }}>
        {recovery ? text.useApp : text.useRecovery}
      </Link>
      <Link component={RouterLink} to={paths.login} sx={{ alignSelf: 'center' }}>
        {text.backToLogin}
      </Link>
    </AuthForm>
  );
}
