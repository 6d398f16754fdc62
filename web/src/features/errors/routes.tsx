import type { RouteObject } from 'react-router';

import { paths } from '@/config/paths';

import { NoAccessPage } from './components/no-access-page';
import { RouteErrorPage } from './components/route-error-page';

// Small and met on the way out of a guard: in the first file, so a refusal shows at once.
export const noAccessRoute: RouteObject = { path: paths.notAllowed, element: <NoAccessPage /> };

export const notFoundRoute: RouteObject = {
  path: '*',
  lazy: async () => ({ Component: (await import('./components/not-found-page')).NotFoundPage }),
};

// react-router's own error page is English and for developers: every route's failure (its code
// gone after a deploy, a page that throws) shows one of these instead. In the first file, as a
// page whose code failed to load cannot wait for more code.
/** At the root: a page of its own, for failures outside the portal's layout (or of the layout). */
export const standaloneRouteError = <RouteErrorPage />;
/** Inside the portal's layout: the header and the menu stay, the page says what failed. */
export const inLayoutRouteError = <RouteErrorPage standalone={false} />;
