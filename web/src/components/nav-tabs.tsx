import { Tab, Tabs } from '@mui/material';
import { Link, useLocation } from 'react-router';

export type NavTab = { label: string; to: string };

type NavTabsProps = {
  label: string;
  tabs: NavTab[];
  /** Tabs inside a section of another tab bar: smaller, in the secondary colour. */
  nested?: boolean;
};

const isUnder = (pathname: string, root: string) => pathname === root || pathname.startsWith(`${root}/`);

/** Tabs that are links: the one whose address the current page is under is selected. */
export function NavTabs({ label, tabs, nested = false }: NavTabsProps) {
  const { pathname } = useLocation();
  const current = tabs.find((tab) => isUnder(pathname, tab.to));
  return (
    <Tabs
      value={current?.to ?? false}
      aria-label={label}
      // On a phone the tabs do not fit: arrows say there is more (MUI hides them on touch
      // screens by default), and the strip stops only at the start of a tab, so no label
      // shows with its beginning cut off, reading as another word.
      variant="scrollable"
      scrollButtons="auto"
      allowScrollButtonsMobile
      textColor={nested ? 'secondary' : 'primary'}
      indicatorColor={nested ? 'secondary' : 'primary'}
      sx={{
        borderBottom: 1,
        borderColor: 'divider',
        ...(nested && { minHeight: 40 }),
        '& .MuiTabs-scroller': { scrollSnapType: 'x mandatory' },
        '& .MuiTab-root': { scrollSnapAlign: 'start' },
      }}
    >
      {tabs.map((tab) => (
        <Tab
          key={tab.to}
          value={tab.to}
          label={tab.label}
          component={Link}
          to={tab.to}
          sx={nested ? { minHeight: 40, py: 1 } : { fontSize: '0.9375rem' }}
        />
      ))}
    </Tabs>
  );
}
