import type { RouteObject } from 'react-router';

import { paths } from '@/config/paths';
import { crumb } from '@/lib/breadcrumbs';
import { strings } from '@/lib/strings';

export const searchRoutes: RouteObject[] = [
  {
    path: paths.search,
    handle: crumb(strings.search.page),
    lazy: async () => ({ Component: (await import('./components/search-page')).SearchPage }),
  },
];
