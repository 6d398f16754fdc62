import { enqueueSnackbar, SnackbarProvider } from 'notistack';
import { useEffect } from 'react';

import { attachToasts } from '@/lib/notifications';

/**
 * notistack's provider, loaded with the first toast (see `lib/notifications`). The provider
 * binds notistack's `enqueueSnackbar` as it renders, before this effect hands it the toasts.
 */
export function Toasts() {
  useEffect(() => attachToasts(({ message, options }) => enqueueSnackbar(message, options)), []);
  return <SnackbarProvider maxSnack={4} />;
}
