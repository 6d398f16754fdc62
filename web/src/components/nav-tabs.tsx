import { Tab, Tabs } from '@mui/material';
import { Link, useLocation } from 'react-router';

export type NavTab = { label: string; to: string };

type NavTabsProps = {
  label: string;
  tabs: NavTab[];
  /** Tabs inside a section of another tab bar: smaller, in the secondary colour. */
  nested?: boolean;
  /**
   * Few tabs that must all show at once, also on a phone: they wrap onto more rows instead of
   * scrolling, the chosen one underlined (the sliding indicator follows one row only).
   */
  wrap?: boolean;
};

const isUnder = (pathname: string, root: string) => pathname === root || pathname.startsWith(`${root}/`);

const scrolling = { variant: 'scrollable', scrollButtons: 'auto', allowScrollButtonsMobile: true } as const;

/** Tabs that are links: the one whose address the current page is under is selected. */
export function NavTabs({ label, tabs, nested = false, wrap = false }: NavTabsProps) {
  const { pathname } = useLocation();
  const current = tabs.find((tab) => isUnder(pathname, tab.to));
  return (
    <Tabs
      value={current?.to ?? false}
      aria-label={label}
      // Unless they wrap, on a phone the tabs do not fit: arrows say there is more (MUI hides
      // them on touch screens by default), and the strip stops only at the start of a tab, so
      // no label shows with its beginning cut off, reading as another word.
      {...(wrap ? { variant: 'standard' } : scrolling)}
      textColor={nested ? 'secondary' : 'primary'}
      indicatorColor={nested ? 'secondary' : 'primary'}
      sx={{
        borderBottom: 1,
        borderColor: 'divider',
        ...(nested && { minHeight: 40 }),
        '& .MuiTabs-scroller': { scrollSnapType: 'x mandatory' },
        '& .MuiTab-root': { scrollSnapAlign: 'start' },
        ...(wrap && {
          '& .MuiTabs-flexContainer': { flexWrap: 'wrap' },
          '& .MuiTabs-indicator': { display: 'none' },
          '& .MuiTab-root.Mui-selected': { boxShadow: 'inset 0 -2px 0 currentColor' },
        }),
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
