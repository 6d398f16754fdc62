import { createTheme } from '@mui/material';
import { ruRU } from '@mui/material/locale';

import { strings } from '@/lib/strings';

// Calm blue and teal on light grey: readable on ward PCs and phones alike. Every colour used
// for text (a selected tab, an outlined chip) or under white text (a filled chip) reaches
// WCAG AA's 4.5:1 on white and on the grey background (axe's `color-contrast`); MUI's own
// orange warning (3.1:1) and the first teal (4.3:1) did not.
export const theme = createTheme(
  {
    palette: {
      primary: { main: '#0b5f8a' },
      secondary: { main: '#0e7d74' },
      error: { main: '#c62f3c' },
      warning: { main: '#b45309' },
      background: { default: '#f3f6f9', paper: '#ffffff' },
      text: { primary: '#1d2b36', secondary: '#5a6b78' },
    },
    shape: { borderRadius: 8 },
    typography: {
      fontFamily: '"Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
      button: { textTransform: 'none', fontWeight: 600 },
    },
    components: {
      // A title of one long word (a model code, a compound term) wraps where it must rather
      // than widen a phone's page; words that fit are never broken.
      MuiCssBaseline: { styleOverrides: { body: { overflowWrap: 'anywhere' } } },
      MuiAppBar: { defaultProps: { elevation: 0 } },
      // A keyboard's focus shows on every button, tab, menu item and icon (issue 37): MUI's own
      // sign is a faint ripple that a contained button's colour all but hides. Drawn inside the
      // element in its own text colour, so that a strip's or a paper's edge cannot clip it and
      // it shows on a filled button as on a plain one.
      MuiButtonBase: {
        styleOverrides: {
          root: { '&.Mui-focusVisible': { outline: '2px solid currentColor', outlineOffset: -2 } },
        },
      },
      // A spinner is a progress bar to assistive technology and needs a name (axe's
      // `aria-progressbar-name`); one that means something else names itself.
      MuiCircularProgress: { defaultProps: { 'aria-label': strings.common.loading } },
      // Lists sit in outlined papers: the last row's divider would double the paper's border.
      MuiListItem: { styleOverrides: { divider: { '&:last-child': { borderBottom: 0 } } } },
      MuiListItemButton: { styleOverrides: { divider: { '&:last-child': { borderBottom: 0 } } } },
      // Long department titles stay inside their card on a phone.
      MuiChip: { styleOverrides: { root: { maxWidth: '100%' } } },
      // In a table `anywhere` let a squeezed column shrink to one letter a line (issue 37):
      // a cell breaks only a word longer than the column can ever be, and a header not at all;
      // a table that does not fit scrolls in its own box (`components/data-table`).
      MuiTableCell: {
        styleOverrides: { root: { overflowWrap: 'break-word' }, head: { whiteSpace: 'nowrap' } },
      },
    },
  },
  ruRU,
);
