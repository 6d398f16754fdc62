import { Navigate, type RouteObject } from 'react-router';

import { UnderConstruction } from '@/components/under-construction';
import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

// Each list route takes an optional detail id: the page shows the list without it and
// the entity with it (spec §2: the list hides while a detail is open).
export const adminRoutes: RouteObject[] = [
  {
    path: paths.admin,
    children: [
      { index: true, element: <UnderConstruction title={strings.pages.admin} /> },
      {
        path: 'education',
        children: [
          { index: true, element: <Navigate to="courses" replace /> },
          {
            path: 'courses/:adminCourseId?',
            element: <UnderConstruction title={strings.pages.adminCourses} />,
          },
          {
            path: 'articles/:adminArticleId?',
            element: <UnderConstruction title={strings.pages.adminArticles} />,
          },
          { path: 'tests/:adminTestId?', element: <UnderConstruction title={strings.pages.adminTests} /> },
        ],
      },
      {
        path: 'equipments',
        children: [
          { index: true, element: <Navigate to="equipment-models" replace /> },
          {
            path: 'equipment-models/:adminEnvironmentModelId?',
            element: <UnderConstruction title={strings.pages.adminEquipmentModels} />,
          },
        ],
      },
      {
        path: 'users-management',
        children: [
          { index: true, element: <Navigate to="admin-departments" replace /> },
          {
            path: 'admin-departments/:adminDepartmentId?',
            element: <UnderConstruction title={strings.pages.adminDepartments} />,
          },
          {
            path: 'admin-users/:adminUserId?',
            element: <UnderConstruction title={strings.pages.adminUsers} />,
          },
          {
            path: 'admin-roles/:adminRoleId?',
            element: <UnderConstruction title={strings.pages.adminRoles} />,
          },
        ],
      },
      { path: 'statistics', element: <UnderConstruction title={strings.pages.adminStatistics} /> },
    ],
  },
];
