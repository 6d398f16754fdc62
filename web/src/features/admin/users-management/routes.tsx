import { Navigate, type RouteObject } from 'react-router';

import { paths } from '@/config/paths';
import { crumb } from '@/lib/breadcrumbs';
import { strings } from '@/lib/strings';

import { DepartmentCrumb } from './components/departments/department-crumb';
import { DepartmentPage } from './components/departments/department-page';
import { DepartmentsPage } from './components/departments/departments-page';
import { RoleCrumb } from './components/roles/role-crumb';
import { RolePage } from './components/roles/role-page';
import { RolesPage } from './components/roles/roles-page';
import { UserCrumb } from './components/users/user-crumb';
import { UserPage } from './components/users/user-page';
import { UsersPage } from './components/users/users-page';
import { UsersManagementLayout } from './components/users-management-layout';

// Each tab is a list (index) with a detail child: the detail replaces the list (spec §2).
export const usersManagementRoutes: RouteObject[] = [
  {
    element: <UsersManagementLayout />,
    children: [
      { index: true, element: <Navigate to={paths.adminDepartments} replace /> },
      {
        path: paths.adminDepartments,
        handle: crumb(strings.pages.adminDepartments),
        children: [
          { index: true, element: <DepartmentsPage /> },
          { path: ':adminDepartmentId', element: <DepartmentPage />, handle: crumb(DepartmentCrumb) },
        ],
      },
      {
        path: paths.adminUsers,
        handle: crumb(strings.pages.adminUsers),
        children: [
          { index: true, element: <UsersPage /> },
          { path: ':adminUserId', element: <UserPage />, handle: crumb(UserCrumb) },
        ],
      },
      {
        path: paths.adminRoles,
        handle: crumb(strings.pages.adminRoles),
        children: [
          { index: true, element: <RolesPage /> },
          { path: ':adminRoleId', element: <RolePage />, handle: crumb(RoleCrumb) },
        ],
      },
    ],
  },
];
