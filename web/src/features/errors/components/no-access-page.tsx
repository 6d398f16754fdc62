import LockOutlined from '@mui/icons-material/LockOutlined';

import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

import { ErrorScreen } from './error-screen';

export function NoAccessPage() {
  return (
    <ErrorScreen
      icon={<LockOutlined color="primary" sx={{ fontSize: 64 }} />}
      message={strings.errors.noAccess}
      actionLabel={strings.errors.toLogin}
      actionTo={paths.login}
    />
  );
}
