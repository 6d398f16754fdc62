import LockOutlined from '@mui/icons-material/LockOutlined';
import { useSearchParams } from 'react-router';

import { paths } from '@/config/paths';
import { keepReturnPath } from '@/lib/session/return-path';
import { useSession } from '@/lib/session/session';
import { strings } from '@/lib/strings';

import { ErrorScreen } from './error-screen';

/**
 * Spec §2's no-access page. Signed out, it leads to sign-in; a signed-in person who lacks a
 * right sees it inside the portal's header and sidebar, and goes home from it.
 */
export function NoAccessPage() {
  const signedIn = useSession() !== null;
  const [search] = useSearchParams();
  return (
    <ErrorScreen
      icon={<LockOutlined color="primary" sx={{ fontSize: 64 }} />}
      message={strings.errors.noAccess}
      action={
        signedIn
          ? { label: strings.errors.toHome, to: paths.home }
          : { label: strings.errors.toLogin, to: keepReturnPath(paths.login, search) }
      }
      standalone={!signedIn}
    />
  );
}
