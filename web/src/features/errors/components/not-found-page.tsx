import SearchOffOutlined from '@mui/icons-material/SearchOffOutlined';

import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

import { ErrorScreen } from './error-screen';

export function NotFoundPage() {
  return (
    <ErrorScreen
      icon={<SearchOffOutlined color="primary" sx={{ fontSize: 64 }} />}
      message={strings.errors.notFound}
      action={{ label: strings.errors.toHome, to: paths.home }}
    />
  );
}
