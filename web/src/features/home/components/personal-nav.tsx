import AccountCircleOutlined from '@mui/icons-material/AccountCircleOutlined';
import BarChartOutlined from '@mui/icons-material/BarChartOutlined';
import QuizOutlined from '@mui/icons-material/QuizOutlined';
import { BottomNavigation, BottomNavigationAction, Box, Paper } from '@mui/material';
import { Link } from 'react-router';

import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

const items = [
  { label: strings.pages.cabinet, icon: <AccountCircleOutlined />, to: paths.cabinet },
  { label: strings.pages.myTests, icon: <QuizOutlined />, to: paths.myTests },
  { label: strings.pages.myStatistics, icon: <BarChartOutlined />, to: paths.myStatistics },
];

// On a phone or a tablet the bar is fixed along the bottom edge, the width of the screen, as
// phones' own bars are (issue 37: floating above the page it let the text show around and under
// it); `PersonalNavSpace` keeps the end of the page clear of it. Each label may take two lines,
// broken between its words only, so that «Личный кабинет» fits a 320 px screen.
const fixedOnSmallScreens = { xs: 'fixed', md: 'static' } as const;

/** The home page's bottom navigation (spec §1); on phones and tablets it stays in view. */
export function PersonalNav() {
  return (
    <Paper
      component="nav"
      aria-label={strings.home.personalLabel}
      variant="outlined"
      square
      sx={{
        position: fixedOnSmallScreens,
        left: 0,
        right: 0,
        bottom: 0,
        zIndex: 'appBar',
        borderWidth: { xs: '1px 0 0', md: 1 },
        borderRadius: { md: 1 },
        overflow: 'hidden',
        pb: { xs: 'env(safe-area-inset-bottom)', md: 0 },
      }}
    >
      <BottomNavigation showLabels value={false} sx={{ height: 'auto', minHeight: 56 }}>
        {items.map((item) => (
          <BottomNavigationAction
            key={item.to}
            label={item.label}
            icon={item.icon}
            component={Link}
            to={item.to}
            sx={{
              minWidth: 0,
              px: 0.5,
              py: 1,
              '& .MuiBottomNavigationAction-label': {
                textAlign: 'center',
                lineHeight: 1.25,
                overflowWrap: 'normal',
              },
            }}
          />
        ))}
      </BottomNavigation>
    </Paper>
  );
}

/**
 * The room the fixed bar takes at the bottom of a phone's page, so that the page's last lines
 * scroll clear of it (with the gap above it, as tall as the bar with two-line labels), and the
 * phone's own bottom inset.
 */
export function PersonalNavSpace() {
  return (
    <Box
      aria-hidden
      sx={{ display: { xs: 'block', md: 'none' }, height: 'calc(56px + env(safe-area-inset-bottom))' }}
    />
  );
}
