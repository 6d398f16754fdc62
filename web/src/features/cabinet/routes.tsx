import type { RouteObject } from 'react-router';

import { paths } from '@/config/paths';
import { crumb } from '@/lib/breadcrumbs';
import { strings } from '@/lib/strings';

// The home page's bottom navigation: the personal cabinet. "My tests" and "My statistics"
// are the education feature's pages.
export const cabinetRoutes: RouteObject[] = [
  {
    path: paths.cabinet,
    lazy: async () => ({ Component: (await import('./components/cabinet-page')).CabinetPage }),
    handle: crumb(strings.pages.cabinet),
  },
];
