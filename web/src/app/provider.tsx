import { CssBaseline } from '@mui/material';
import { ThemeProvider } from '@mui/system';
import { lazy, Suspense, useSyncExternalStore, type ReactNode } from 'react';

import { subscribeToasts, toastsWanted } from '@/lib/notifications';

import { theme } from './theme';

const Toasts = lazy(async () => ({ default: (await import('./toasts')).Toasts }));

/** Toasts appear once one is asked for; until then notistack is not loaded. */
function ToastHost() {
  const wanted = useSyncExternalStore(subscribeToasts, toastsWanted);
  if (!wanted) return null;
  return (
    <Suspense fallback={null}>
      <Toasts />
    </Suspense>
  );
}

/**
 * What every page needs, the sign-in page included: theme and toasts. The grpc-web transport
 * and the query cache come with the pages that load data (see `./data-provider`), so the
 * first load of /login does not carry them. The theme uses no CSS variables, so @mui/system's
 * provider gives it: @mui/material's brings its CSS-variables provider (colour-scheme script,
 * storage manager) into every first load for nothing.
 */
export function AppProvider({ children }: { children: ReactNode }) {
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      {children}
      <ToastHost />
    </ThemeProvider>
  );
}
