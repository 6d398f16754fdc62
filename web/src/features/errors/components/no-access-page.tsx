import LockOutlined from '@mui/icons-material/LockOutlined';

import { paths } from '@/config/paths';
import { useSession } from '@/lib/session/session';
import { strings } from '@/lib/strings';

import { ErrorScreen } from './error-screen';

/**
 * Spec §2's no-access page. Signed out, it leads to sign-in; a signed-in person who lacks a
 * right sees it inside the portal's header and sidebar, and goes home from it.
 */
export function NoAccessPage() {
  const signedIn = useSession() !== null;
  return (
    <ErrorScreen
      icon={<LockOutlined color="primary" sx={{ fontSize: 64 }} />}
      message={strings.errors.noAccess}
      actionLabel={signedIn ? strings.errors.toHome : strings.errors.toLogin}
      actionTo={signedIn ? paths.home : paths.login}
      standalone={!signedIn}
    />
  );
}
