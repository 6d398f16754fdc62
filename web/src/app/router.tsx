import { Navigate, type RouteObject } from 'react-router';

import { paths } from '@/config/paths';
import { adminRoutes } from '@/features/admin/routes';
import { loginRoute } from '@/features/auth/routes';
import { cabinetRoutes } from '@/features/cabinet/routes';
import { educationRoutes } from '@/features/education/routes';
import { publicInstructionRoute, equipmentRoutes } from '@/features/equipment/routes';
import { noAccessRoute, notFoundRoute } from '@/features/errors/routes';
import { homeRoutes } from '@/features/home/routes';
import { RequireSession } from '@/lib/session/guards';

import { AppLayout } from './layout/app-layout';

export const routes: RouteObject[] = [
  { path: paths.root, element: <Navigate to={paths.home} replace /> },
  loginRoute,
  noAccessRoute,
  publicInstructionRoute,
  {
    // Spec §2: everything inside the portal's header and sidebar needs a session.
    element: <RequireSession />,
    children: [
      {
        element: <AppLayout />,
        children: [...homeRoutes, ...cabinetRoutes, ...educationRoutes, ...equipmentRoutes, ...adminRoutes],
      },
    ],
  },
  notFoundRoute,
];
