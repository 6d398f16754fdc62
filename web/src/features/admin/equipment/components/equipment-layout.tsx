import { Box } from '@mui/material';
import { Outlet } from 'react-router';

import { NavTabs } from '@/components/nav-tabs';
import { paths } from '@/config/paths';
import { equipmentStrings } from '@/lib/equipment-strings';
import { strings } from '@/lib/strings';

const tabs = [
  { label: strings.pages.adminEquipmentModels, to: paths.adminEquipmentModels },
  { label: equipmentStrings.reference.title, to: paths.adminEquipmentReference },
];

export function EquipmentLayout() {
  return (
    <>
      <NavTabs label={equipmentStrings.admin.tabsLabel} tabs={tabs} nested />
      <Box sx={{ pt: 3 }}>
        <Outlet />
      </Box>
    </>
  );
}
