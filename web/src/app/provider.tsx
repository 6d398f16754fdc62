import { TransportProvider } from '@connectrpc/connect-query';
import { CssBaseline, ThemeProvider } from '@mui/material';
import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { SnackbarProvider } from 'notistack';
import type { ReactNode } from 'react';

import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notifications';
import { createPortalTransport } from '@/lib/transport';

import { theme } from './theme';

// Same origin: the gateway serves these files and grpc-web on one port.
const transport = createPortalTransport(window.location.origin);

// A failed load shows the server's message as a toast (spec §8), wherever it was asked for.
const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: (error) => notify.error(errorMessage(error)) }),
});

export function AppProvider({ children }: { children: ReactNode }) {
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      <SnackbarProvider maxSnack={4}>
        <TransportProvider transport={transport}>
          <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
        </TransportProvider>
      </SnackbarProvider>
    </ThemeProvider>
  );
}
