import { Typography } from '@mui/material';
import { Navigate, type RouteObject } from 'react-router';

import { UnderConstruction } from '@/components/under-construction';
import { paths } from '@/config/paths';
import { crumb } from '@/lib/breadcrumbs';
import { RequireRight } from '@/lib/session/guards';
import { adminRights, Right } from '@/lib/session/rights';
import { strings } from '@/lib/strings';

import { educationRoutes } from './education/routes';
import { statisticsRoutes } from './statistics/routes';
import { usersManagementRoutes } from './users-management/routes';

const placeholder = (title: string): RouteObject => ({
  element: <UnderConstruction title={title} />,
  handle: crumb(title),
});

// /admin opens to any admin-type right; each section needs its own (spec §2, DESIGN §6).
// Equipment keeps an optional detail id until its pages arrive.
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
            element: <Typography sx={{ color: 'text.secondary' }}>{strings.admin.chooseSection}</Typography>,
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
            children: [
              { index: true, element: <Navigate to="equipment-models" replace /> },
              {
                path: 'equipment-models/:adminEnvironmentModelId?',
                ...placeholder(strings.pages.adminEquipmentModels),
              },
            ],
          },
          {
            path: paths.adminUsersManagement,
            element: <RequireRight anyOf={[Right.UserManagement]} />,
            handle: crumb(strings.pages.adminUsersManagement),
            children: usersManagementRoutes,
          },
          ...statisticsRoutes,
        ],
      },
    ],
  },
];
