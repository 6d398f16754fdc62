import type { RouteObject } from 'react-router';

import { paths } from '@/config/paths';

export const homeRoutes: RouteObject[] = [
  {
    path: paths.home,
    lazy: async () => ({ Component: (await import('./components/home-page')).HomePage }),
  },
];
