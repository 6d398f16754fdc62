import LogoutOutlined from '@mui/icons-material/LogoutOutlined';
import MenuIcon from '@mui/icons-material/Menu';
import SearchIcon from '@mui/icons-material/Search';
import { AppBar, Box, Button, Drawer, IconButton, Stack, Toolbar, Typography } from '@mui/material';
import { useState } from 'react';
import { Link, Outlet, useNavigate } from 'react-router';

import { OrganisationLogo, PortalLogo } from '@/components/logos';
import { paths } from '@/config/paths';
import { MfaBanner } from '@/features/cabinet/components/mfa-banner';
import { NotificationBell } from '@/features/notifications/components/notification-bell';
import { SearchBox } from '@/features/search/components/search-box';
import { fullName } from '@/lib/person-name';
import { signOut } from '@/lib/session/auth-api';
import { useIsAdmin } from '@/lib/session/rights';
import { useSession } from '@/lib/session/session';
import { strings } from '@/lib/strings';

import { Breadcrumbs } from './breadcrumbs';
import { SectionHeading } from './section-heading';
import { SidebarNav } from './sidebar-nav';

const drawerWidth = 300;

// Ward PCs get a permanent sidebar; phones (often opened from an equipment QR code)
// get the same links in a drawer behind the menu button.
export function AppLayout() {
  const [drawerOpen, setDrawerOpen] = useState(false);
  const canSeeAdmin = useIsAdmin();
  const user = useSession()?.user;
  const navigate = useNavigate();
  const closeDrawer = () => setDrawerOpen(false);
  const exit = async () => {
    if (await signOut()) return;
    await navigate(paths.login, { replace: true });
  };

  return (
    <Box sx={{ display: 'flex', minHeight: '100vh', bgcolor: 'background.default' }}>
      <AppBar
        position="fixed"
        color="inherit"
        sx={{ zIndex: (theme) => theme.zIndex.drawer + 1, borderBottom: 1, borderColor: 'divider' }}
      >
        <Toolbar sx={{ gap: { xs: 1, sm: 2 } }}>
          <IconButton
            edge="start"
            aria-label={strings.app.openMenu}
            onClick={() => setDrawerOpen(true)}
            sx={{ display: { md: 'none' } }}
          >
            <MenuIcon />
          </IconButton>
          <Stack
            direction="row"
            spacing={1.5}
            component={Link}
            to={paths.home}
            sx={{ alignItems: 'center', color: 'inherit', textDecoration: 'none', minWidth: 0 }}
          >
            <PortalLogo titleAccess={strings.app.logoAlt} sx={{ fontSize: 40 }} />
            <Box sx={{ minWidth: 0, display: { xs: 'none', sm: 'block' } }}>
              <Typography variant="subtitle1" noWrap sx={{ fontWeight: 700, lineHeight: 1.2 }}>
                {strings.app.name}
              </Typography>
              <Typography variant="caption" noWrap sx={{ color: 'text.secondary', display: 'block' }}>
                {strings.app.organisation}
              </Typography>
            </Box>
          </Stack>
          {/* A phone's header has no room for the box beside the bell and «Выход»: its button
              opens the search page, which has a box of its own. */}
          <Box
            sx={{ flexGrow: 1, display: { xs: 'none', sm: 'flex' }, justifyContent: 'center', minWidth: 0 }}
          >
            <SearchBox />
          </Box>
          <Box sx={{ flexGrow: 1, display: { xs: 'block', sm: 'none' } }} />
          <IconButton
            component={Link}
            to={paths.search}
            aria-label={strings.search.open}
            sx={{ display: { xs: 'inline-flex', sm: 'none' } }}
          >
            <SearchIcon />
          </IconButton>
          {user && (
            <Typography
              noWrap
              sx={{ display: { xs: 'none', sm: 'block' }, color: 'text.secondary', minWidth: 0 }}
            >
              {fullName(user)}
            </Typography>
          )}
          <NotificationBell />
          <Button color="inherit" onClick={() => void exit()} startIcon={<LogoutOutlined />}>
            {strings.app.signOut}
          </Button>
          <OrganisationLogo titleAccess={strings.app.organisationLogoAlt} sx={{ fontSize: 40 }} />
        </Toolbar>
      </AppBar>

      <Drawer
        variant="temporary"
        open={drawerOpen}
        onClose={closeDrawer}
        sx={{ display: { xs: 'block', md: 'none' }, '& .MuiDrawer-paper': { width: drawerWidth } }}
      >
        <Toolbar />
        <SidebarNav canSeeAdmin={canSeeAdmin} onNavigate={closeDrawer} />
      </Drawer>
      <Drawer
        variant="permanent"
        sx={{
          display: { xs: 'none', md: 'block' },
          width: drawerWidth,
          flexShrink: 0,
          // The paper is fixed to the screen's height; its place in the row, as tall as the
          // page, is white too, so a long page printed or captured whole keeps the column.
          bgcolor: 'background.paper',
          borderRight: 1,
          borderColor: 'divider',
          '& .MuiDrawer-paper': { width: drawerWidth, boxSizing: 'border-box' },
        }}
      >
        <Toolbar />
        <SidebarNav canSeeAdmin={canSeeAdmin} />
      </Drawer>

      <Box component="main" sx={{ flexGrow: 1, minWidth: 0, p: { xs: 2, sm: 3, md: 4 } }}>
        <Toolbar />
        <SectionHeading />
        <Breadcrumbs />
        <MfaBanner admin={canSeeAdmin} />
        <Outlet />
      </Box>
    </Box>
  );
}
