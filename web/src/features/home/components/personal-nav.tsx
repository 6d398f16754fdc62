import AccountCircleOutlined from '@mui/icons-material/AccountCircleOutlined';
import BarChartOutlined from '@mui/icons-material/BarChartOutlined';
import QuizOutlined from '@mui/icons-material/QuizOutlined';
import { BottomNavigation, BottomNavigationAction, Paper } from '@mui/material';
import { Link } from 'react-router';

import { paths } from '@/config/paths';
import { strings } from '@/lib/strings';

const items = [
  { label: strings.pages.cabinet, icon: <AccountCircleOutlined />, to: paths.cabinet },
  { label: strings.pages.myTests, icon: <QuizOutlined />, to: paths.myTests },
  { label: strings.pages.myStatistics, icon: <BarChartOutlined />, to: paths.myStatistics },
];

/** The home page's bottom navigation (spec §1); on phones and tablets it stays in view. */
export function PersonalNav() {
  return (
    <Paper
      component="nav"
      aria-label={strings.home.personalLabel}
      variant="outlined"
      sx={{
        position: { xs: 'sticky', md: 'static' },
        bottom: { xs: 8, sm: 16 },
        overflow: 'hidden',
        zIndex: 1,
      }}
    >
      <BottomNavigation showLabels value={false}>
        {items.map((item) => (
          <BottomNavigationAction
            key={item.to}
            label={item.label}
            icon={item.icon}
            component={Link}
            to={item.to}
          />
        ))}
      </BottomNavigation>
    </Paper>
  );
}
