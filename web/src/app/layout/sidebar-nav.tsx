import AdminPanelSettingsOutlined from '@mui/icons-material/AdminPanelSettingsOutlined';
import AssignmentOutlined from '@mui/icons-material/AssignmentOutlined';
import HomeOutlined from '@mui/icons-material/HomeOutlined';
import LanguageOutlined from '@mui/icons-material/LanguageOutlined';
import MedicalServicesOutlined from '@mui/icons-material/MedicalServicesOutlined';
import OpenInNew from '@mui/icons-material/OpenInNew';
import SchoolOutlined from '@mui/icons-material/SchoolOutlined';
import { List, ListItemButton, ListItemIcon, ListItemText } from '@mui/material';
import type { ReactNode } from 'react';
import { NavLink } from 'react-router';

import { externalLinks } from '@/config/links';
import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

type SidebarNavProps = {
  /** Shows the Admin panel link; see `useIsAdmin`. */
  canSeeAdmin: boolean;
  /** Called after a link is chosen, so the phone drawer can close. */
  onNavigate?: () => void;
};

type Item = { label: string; icon: ReactNode; to: string } | { label: string; icon: ReactNode; href: string };

const labelSx = { fontSize: '0.9375rem', fontWeight: 500 };

export function SidebarNav({ canSeeAdmin, onNavigate }: SidebarNavProps) {
  // Spec §1: Home has two entries, the portal's own home page and the organisation's site.
  const items: Item[] = [
    { label: strings.nav.home, icon: <HomeOutlined />, to: paths.home },
    { label: strings.nav.mainSite, icon: <LanguageOutlined />, href: externalLinks.mainSite },
    { label: strings.nav.education, icon: <SchoolOutlined />, to: paths.courses },
    { label: strings.nav.equipment, icon: <MedicalServicesOutlined />, to: paths.departments },
    { label: strings.nav.taskSite, icon: <AssignmentOutlined />, href: externalLinks.taskSite },
    ...(canSeeAdmin
      ? [{ label: strings.nav.admin, icon: <AdminPanelSettingsOutlined />, to: paths.admin }]
      : []),
  ];

  return (
    <List component="nav" aria-label={strings.app.navigation} sx={{ px: 1.5, py: 2 }}>
      {items.map((item) =>
        'to' in item ? (
          <ListItemButton
            key={item.label}
            component={NavLink}
            to={item.to}
            onClick={onNavigate}
            sx={{
              borderRadius: 2,
              mb: 0.5,
              '&.active': { bgcolor: 'primary.main', color: 'primary.contrastText' },
              '&.active .MuiListItemIcon-root': { color: 'inherit' },
            }}
          >
            <ListItemIcon sx={{ minWidth: 40 }}>{item.icon}</ListItemIcon>
            <ListItemText primary={item.label} slotProps={{ primary: { sx: labelSx } }} />
          </ListItemButton>
        ) : (
          <ListItemButton
            key={item.label}
            component="a"
            href={item.href}
            target="_blank"
            rel="noopener noreferrer"
            aria-label={`${item.label} (${strings.nav.opensInNewTab})`}
            onClick={onNavigate}
            sx={{ borderRadius: 2, mb: 0.5 }}
          >
            <ListItemIcon sx={{ minWidth: 40 }}>{item.icon}</ListItemIcon>
            <ListItemText primary={item.label} slotProps={{ primary: { sx: labelSx } }} />
            <OpenInNew fontSize="small" sx={{ color: 'text.secondary', ml: 1 }} />
          </ListItemButton>
        ),
      )}
    </List>
  );
}
