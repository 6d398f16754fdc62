import { Navigate, type RouteObject } from 'react-router';

import { LoadingBar } from '@/components/loading-bar';
import { paths } from '@/config/paths';
import { adminRoutes } from '@/features/admin/routes';
import { firstSignInRoute, loginCodeRoute, loginRoute, passwordResetRoutes } from '@/features/auth/routes';
import { cabinetRoutes } from '@/features/cabinet/routes';
import { educationRoutes } from '@/features/education/routes';
import { equipmentPrintRoutes, equipmentRoutes, publicInstructionRoute } from '@/features/equipment/routes';
import {
  inLayoutRouteError,
  noAccessRoute,
  notFoundRoute,
  standaloneRouteError,
} from '@/features/errors/routes';
import { homeRoutes } from '@/features/home/routes';
import { searchRoutes } from '@/features/search/routes';
import { RequireSession } from '@/lib/session/guards';

import { PageLoad } from './layout/page-load';

// Route-level code splitting: only the route table, these few guards and the no-access page
// are in the first file a browser loads; every other page (the sign-in page too), the portal's
// layout and the data layer arrive through a route's `lazy` on first use (see ARCHITECTURE.md).
const dataProvider: RouteObject['lazy'] = async () => ({
  Component: (await import('./data-provider')).DataProvider,
});

export const routes: RouteObject[] = [
  {
    element: <PageLoad />,
    // The first page of a visit waits for its code: the bar, and nothing to shift after.
    HydrateFallback: LoadingBar,
    errorElement: standaloneRouteError,
    children: [
      { path: paths.root, element: <Navigate to={paths.home} replace /> },
      loginRoute,
      loginCodeRoute,
      ...passwordResetRoutes,
      firstSignInRoute,
      publicInstructionRoute,
      {
        lazy: async () => ({ Component: (await import('./layout/session-layout')).SessionLayout }),
        children: [noAccessRoute],
      },
      {
        // Spec §2: everything inside the portal's header and sidebar needs a session.
        element: <RequireSession />,
        children: [
          {
            lazy: dataProvider,
            children: [
              ...equipmentPrintRoutes,
              {
                lazy: async () => ({ Component: (await import('./layout/app-layout')).AppLayout }),
                children: [
                  {
                    errorElement: inLayoutRouteError,
                    children: [
                      ...homeRoutes,
                      ...cabinetRoutes,
                      ...educationRoutes,
                      ...equipmentRoutes,
                      ...adminRoutes,
                      ...searchRoutes,
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
      notFoundRoute,
    ],
  },
];
