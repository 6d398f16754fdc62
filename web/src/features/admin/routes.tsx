import { type RouteObject } from 'react-router';

import { paths } from '@/config/paths';
import { crumb } from '@/lib/breadcrumbs';
import { RequireRight } from '@/lib/session/guards';
import { adminRights, Right } from '@/lib/session/rights';
import { strings } from '@/lib/strings';

import { auditRoutes } from './audit/routes';
import { educationRoutes } from './education/routes';
import { equipmentAdminRoutes } from './equipment/routes';
import { statisticsRoutes } from './statistics/routes';
import { usersManagementRoutes } from './users-management/routes';

// /admin opens to any admin-type right; each section needs its own (spec §2, DESIGN §6).
export const adminRoutes: RouteObject[] = [
  {
    path: paths.admin,
    element: <RequireRight anyOf={adminRights} />,
    handle: crumb(strings.pages.admin),
    children: [
      {
        lazy: async () => ({ Component: (await import('./components/admin-layout')).AdminLayout }),
        children: [
          {
            index: true,
            lazy: async () => ({ Component: (await import('./components/admin-home')).AdminHome }),
          },
          {
            path: paths.adminEducation,
            element: <RequireRight anyOf={[Right.EducationManagement]} />,
            handle: crumb(strings.pages.adminEducation),
            children: educationRoutes,
          },
          {
            path: paths.adminEquipment,
            element: <RequireRight anyOf={[Right.EquipmentEditing]} />,
            handle: crumb(strings.pages.adminEquipment),
            children: equipmentAdminRoutes,
          },
          {
            path: paths.adminUsersManagement,
            element: <RequireRight anyOf={[Right.UserManagement]} />,
            handle: crumb(strings.pages.adminUsersManagement),
            children: usersManagementRoutes,
          },
          ...statisticsRoutes,
          ...auditRoutes,
        ],
      },
    ],
  },
];
