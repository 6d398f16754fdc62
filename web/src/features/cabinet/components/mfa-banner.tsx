import { useQuery } from '@connectrpc/connect-query';
import { Alert, Button } from '@mui/material';
import { Link } from 'react-router';

import { paths } from '@/config/paths';
import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
import { mfaStrings } from '@/lib/mfa-strings';

/**
 * Where policy requires two-step sign-in of admins (PORTAL_MFA_FOR_ADMINS, issue 39.4), an admin
 * who has not enrolled yet is let in, and asked here on every page until they do.
 */
export function MfaBanner({ admin }: { admin: boolean }) {
  const mine = useQuery(AuthService.method.getMyMfa, {}, { enabled: admin });
  if (!admin || !mine.data?.required || mine.data.enabled) return null;
  return (
    <Alert
      severity="warning"
      sx={{ mb: 2 }}
      action={
        <Button component={Link} to={paths.cabinet} color="inherit" size="small">
          {mfaStrings.banner.action}
        </Button>
      }
    >
      {mfaStrings.banner.text}
    </Alert>
  );
}
