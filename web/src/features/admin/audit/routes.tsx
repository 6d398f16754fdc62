import type { RouteObject } from 'react-router';

import { paths } from '@/config/paths';
import { crumb } from '@/lib/breadcrumbs';
import { RequireRight } from '@/lib/session/guards';
import { Right } from '@/lib/session/rights';
import { strings } from '@/lib/strings';

// Beyond spec §2 (issue 25): the audit log, for UserManagement; every service checks it too.
export const auditRoutes: RouteObject[] = [
  {
    path: paths.adminAudit,
    element: <RequireRight anyOf={[Right.UserManagement]} />,
    handle: crumb(strings.pages.adminAudit),
    children: [
      {
        index: true,
        lazy: async () => ({ Component: (await import('./components/audit-page')).AuditPage }),
      },
    ],
  },
];
