import { Box } from '@mui/material';
import { Outlet } from 'react-router';

import { NavTabs } from '@/components/nav-tabs';
import { paths } from '@/config/paths';
import { adminStrings } from '@/lib/admin-strings';
import { strings } from '@/lib/strings';

const tabs = [
  { label: strings.pages.adminDepartments, to: paths.adminDepartments },
  { label: strings.pages.adminUsers, to: paths.adminUsers },
  { label: strings.pages.adminRoles, to: paths.adminRoles },
  { label: strings.pages.adminServiceAccounts, to: paths.adminServiceAccounts },
];

export function UsersManagementLayout() {
  return (
    <>
      <NavTabs label={adminStrings.usersManagementTabsLabel} tabs={tabs} nested />
      <Box sx={{ pt: 3 }}>
        <Outlet />
      </Box>
    </>
  );
}
