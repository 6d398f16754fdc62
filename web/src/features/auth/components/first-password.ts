import { useNavigate } from 'react-router';

import { paths } from '@/config/paths';
import { firstSignInStrings as text } from '@/lib/first-sign-in-strings';
import type { RestResult } from '@/lib/rest';
import { signIn } from '@/lib/session/sign-in';

export type Status = { kind: 'idle' } | { kind: 'pending' } | { kind: 'error'; message: string };

/**
 * A first password chosen (by an invitation's link or a printed code): once the server took
 * it, the person is signed in with it and goes home; should that sign-in fail, the sign-in
 * page opens and says the password is set.
 */
export function useChooseFirstPassword(setStatus: (status: Status) => void) {
  const navigate = useNavigate();
  return async (
    login: string,
    password: string,
    repeat: string,
    save: () => Promise<RestResult<null>>,
    refused: (result: { status: number; message: string }) => string = (r) => r.message,
  ) => {
    if (password !== repeat) {
      setStatus({ kind: 'error', message: text.mismatch });
      return;
    }
    setStatus({ kind: 'pending' });
    const saved = await save();
    if (!saved.ok) {
      setStatus({ kind: 'error', message: refused(saved) });
      return;
    }
    const signedIn = login !== '' && (await signIn(login, password)).ok;
    if (signedIn) void navigate(paths.home, { replace: true });
    else void navigate(paths.login, { replace: true, state: { passwordReset: true } });
  };
}
