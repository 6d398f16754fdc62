import { Box } from '@mui/material';
import { Outlet } from 'react-router';

import { NavTabs } from '@/components/nav-tabs';
import { paths } from '@/config/paths';
import { adminStrings } from '@/lib/admin-strings';
import { strings } from '@/lib/strings';

const tabs = [
  { label: strings.pages.adminCourses, to: paths.adminCourses },
  { label: strings.pages.adminArticles, to: paths.adminArticles },
  { label: strings.pages.adminTests, to: paths.adminTests },
];

export function EducationLayout() {
  return (
    <>
      <NavTabs label={adminStrings.education.tabsLabel} tabs={tabs} nested />
      <Box sx={{ pt: 3 }}>
        <Outlet />
      </Box>
    </>
  );
}
