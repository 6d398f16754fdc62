import { Box } from '@mui/material';
import { Outlet } from 'react-router';

import { NavTabs, type NavTab } from '@/components/nav-tabs';
import { paths } from '@/config/paths';
import { adminStrings } from '@/lib/admin-strings';
import { hasRight, Right } from '@/lib/session/rights';
import { useSession } from '@/lib/session/session';
import { strings } from '@/lib/strings';

// Spec §2: each section shows to the holders of its right; statistics to every admin; the
// audit log (issue 25) to UserManagement.
const sections: { tab: NavTab; right?: Right }[] = [
  {
    tab: { label: strings.pages.adminEducation, to: paths.adminEducation },
    right: Right.EducationManagement,
  },
  { tab: { label: strings.pages.adminEquipment, to: paths.adminEquipment }, right: Right.EquipmentEditing },
  {
    tab: { label: strings.pages.adminUsersManagement, to: paths.adminUsersManagement },
    right: Right.UserManagement,
  },
  { tab: { label: strings.pages.adminStatistics, to: paths.adminStatistics } },
  { tab: { label: strings.pages.adminAudit, to: paths.adminAudit }, right: Right.UserManagement },
];

export function AdminLayout() {
  const session = useSession();
  const tabs = sections
    .filter(({ right }) => right === undefined || hasRight(right, session) === true)
    .map(({ tab }) => tab);
  return (
    <>
      <NavTabs label={adminStrings.sectionsLabel} tabs={tabs} />
      <Box sx={{ pt: 2 }}>
        <Outlet />
      </Box>
    </>
  );
}
