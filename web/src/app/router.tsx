import { Navigate, type RouteObject } from 'react-router';

import { paths } from '@/config/paths';
import { adminRoutes } from '@/features/admin/routes';
import { loginRoute } from '@/features/auth/routes';
import { educationRoutes } from '@/features/education/routes';
import { publicInstructionRoute, equipmentRoutes } from '@/features/equipment/routes';
import { noAccessRoute, notFoundRoute } from '@/features/errors/routes';
import { homeRoutes } from '@/features/home/routes';

import { AppLayout } from './layout/app-layout';

export const routes: RouteObject[] = [
  { path: paths.root, element: <Navigate to={paths.home} replace /> },
  loginRoute,
  noAccessRoute,
  publicInstructionRoute,
  {
    // Everything inside the portal's header and sidebar; a later session guard goes here.
    element: <AppLayout />,
    children: [...homeRoutes, ...educationRoutes, ...equipmentRoutes, ...adminRoutes],
  },
  notFoundRoute,
];
