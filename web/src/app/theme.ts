import { createTheme } from '@mui/material';
import { ruRU } from '@mui/material/locale';

// Calm blue and teal on light grey: readable on ward PCs and phones alike.
export const theme = createTheme(
  {
    palette: {
      primary: { main: '#0b5f8a' },
      secondary: { main: '#12897f' },
      error: { main: '#c62f3c' },
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
      // Lists sit in outlined papers: the last row's divider would double the paper's border.
      MuiListItem: { styleOverrides: { divider: { '&:last-child': { borderBottom: 0 } } } },
      MuiListItemButton: { styleOverrides: { divider: { '&:last-child': { borderBottom: 0 } } } },
      // Long department titles stay inside their card on a phone.
      MuiChip: { styleOverrides: { root: { maxWidth: '100%' } } },
    },
  },
  ruRU,
);
