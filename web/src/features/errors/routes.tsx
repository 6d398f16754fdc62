import type { RouteObject } from 'react-router';

import { paths } from '@/config/paths';

import { NoAccessPage } from './components/no-access-page';

// Small and met on the way out of a guard: in the first file, so a refusal shows at once.
export const noAccessRoute: RouteObject = { path: paths.notAllowed, element: <NoAccessPage /> };

export const notFoundRoute: RouteObject = {
  path: '*',
  lazy: async () => ({ Component: (await import('./components/not-found-page')).NotFoundPage }),
};
