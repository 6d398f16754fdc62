import { Navigate, type RouteObject } from 'react-router';

import { paths } from '@/config/paths';
import { crumb } from '@/lib/breadcrumbs';
import { strings } from '@/lib/strings';

// Each tab is a list (index) with a detail child: the detail replaces the list (spec §2).
// Every page, with the auth client it calls, loads on first use; a detail's breadcrumb
// (the entity's name) comes with it.
export const usersManagementRoutes: RouteObject[] = [
  {
    lazy: async () => ({
      Component: (await import('./components/users-management-layout')).UsersManagementLayout,
    }),
    children: [
      { index: true, element: <Navigate to={paths.adminDepartments} replace /> },
      {
        path: paths.adminDepartments,
        handle: crumb(strings.pages.adminDepartments),
        children: [
          {
            index: true,
            lazy: async () => ({
              Component: (await import('./components/departments/departments-page')).DepartmentsPage,
            }),
          },
          {
            path: ':adminDepartmentId',
            lazy: async () => {
              const [page, title] = await Promise.all([
                import('./components/departments/department-page'),
                import('./components/departments/department-crumb'),
              ]);
              return { Component: page.DepartmentPage, handle: crumb(title.DepartmentCrumb) };
            },
          },
        ],
      },
      {
        path: paths.adminUsers,
        handle: crumb(strings.pages.adminUsers),
        children: [
          {
            index: true,
            lazy: async () => ({ Component: (await import('./components/users/users-page')).UsersPage }),
          },
          {
            path: ':adminUserId',
            lazy: async () => {
              const [page, title] = await Promise.all([
                import('./components/users/user-page'),
                import('./components/users/user-crumb'),
              ]);
              return { Component: page.UserPage, handle: crumb(title.UserCrumb) };
            },
          },
        ],
      },
      {
        path: paths.adminRoles,
        handle: crumb(strings.pages.adminRoles),
        children: [
          {
            index: true,
            lazy: async () => ({ Component: (await import('./components/roles/roles-page')).RolesPage }),
          },
          {
            path: ':adminRoleId',
            lazy: async () => {
              const [page, title] = await Promise.all([
                import('./components/roles/role-page'),
                import('./components/roles/role-crumb'),
              ]);
              return { Component: page.RolePage, handle: crumb(title.RoleCrumb) };
            },
          },
        ],
      },
      {
        path: paths.adminServiceAccounts,
        handle: crumb(strings.pages.adminServiceAccounts),
        children: [
          {
            index: true,
            lazy: async () => ({
              Component: (await import('./components/service-accounts/service-accounts-page'))
                .ServiceAccountsPage,
            }),
          },
          {
            path: ':serviceAccountId',
            lazy: async () => {
              const [page, title] = await Promise.all([
                import('./components/service-accounts/service-account-page'),
                import('./components/service-accounts/service-account-crumb'),
              ]);
              return { Component: page.ServiceAccountPage, handle: crumb(title.ServiceAccountCrumb) };
            },
          },
        ],
      },
    ],
  },
];
