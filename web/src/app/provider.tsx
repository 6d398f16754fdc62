import { CssBaseline, ThemeProvider } from '@mui/material';
import { SnackbarProvider } from 'notistack';
import type { ReactNode } from 'react';

import { theme } from './theme';

/**
 * What every page needs, the sign-in page included: theme and toasts. The grpc-web transport
 * and the query cache come with the pages that load data (see `./data-provider`), so the
 * first load of /login does not carry them.
 */
export function AppProvider({ children }: { children: ReactNode }) {
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      <SnackbarProvider maxSnack={4}>{children}</SnackbarProvider>
    </ThemeProvider>
  );
}
