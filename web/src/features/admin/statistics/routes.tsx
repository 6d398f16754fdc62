import type { RouteObject } from 'react-router';

import { paths } from '@/config/paths';
import { crumb } from '@/lib/breadcrumbs';
import { strings } from '@/lib/strings';

// Spec §2: shown to every admin; the page itself asks for EducationManagement, which the
// education service checks on every call.
export const statisticsRoutes: RouteObject[] = [
  {
    path: paths.adminStatistics,
    handle: crumb(strings.pages.adminStatistics),
    lazy: async () => ({ Component: (await import('./components/statistics-page')).StatisticsPage }),
  },
];
