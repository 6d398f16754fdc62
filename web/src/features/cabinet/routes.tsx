import BarChartOutlined from '@mui/icons-material/BarChartOutlined';
import QuizOutlined from '@mui/icons-material/QuizOutlined';
import type { RouteObject } from 'react-router';

import { EmptyState } from '@/components/empty-state';
import { paths } from '@/config/paths';
import { crumb } from '@/lib/breadcrumbs';
import { strings } from '@/lib/strings';

const emptyIcon = { fontSize: 56, color: 'primary.main' };

// The home page's bottom navigation. Tests and results arrive with the education service.
export const cabinetRoutes: RouteObject[] = [
  {
    path: paths.cabinet,
    lazy: async () => ({ Component: (await import('./components/cabinet-page')).CabinetPage }),
    handle: crumb(strings.pages.cabinet),
  },
  {
    path: paths.myTests,
    element: (
      <EmptyState
        icon={<QuizOutlined sx={emptyIcon} />}
        title={strings.pages.myTests}
        text={strings.emptyState.myTests}
      />
    ),
    handle: crumb(strings.pages.myTests),
  },
  {
    path: paths.myStatistics,
    element: (
      <EmptyState
        icon={<BarChartOutlined sx={emptyIcon} />}
        title={strings.pages.myStatistics}
        text={strings.emptyState.myStatistics}
      />
    ),
    handle: crumb(strings.pages.myStatistics),
  },
];
