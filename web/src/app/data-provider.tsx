import { Code, ConnectError } from '@connectrpc/connect';
import { TransportProvider } from '@connectrpc/connect-query';
import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Outlet } from 'react-router';

import { LeaveGuard } from '@/components/discard-dialog';
import { errorMessage, refusalShown, retryUnlessRefused } from '@/lib/errors';
import { notify } from '@/lib/notifications';
import { RestError } from '@/lib/rest';
import { sessionInterceptor } from '@/lib/session/interceptor';
import { getSession, subscribeSession } from '@/lib/session/session';
import { createPortalTransport, setAuthInterceptor } from '@/lib/transport';

// Same origin: the gateway serves these files and grpc-web on one port.
const transport = createPortalTransport(window.location.origin);
setAuthInterceptor(sessionInterceptor);

const queryClient = new QueryClient({
  // A failed load shows the server's message as a toast (spec §8), wherever it was asked
  // for. A refused session has been dealt with already: signed out with its own message.
  queryCache: new QueryCache({
    onError: (error, query) => {
      if (error instanceof ConnectError && error.code === Code.Unauthenticated) return;
      if (error instanceof RestError && error.status === 401) return;
      if (refusalShown(error, query.meta)) return;
      notify.error(errorMessage(error));
    },
  }),
  // Forms start from loaded data; refetching behind them on every window focus would
  // throw away what a person is typing. A refused load (not found, not allowed) is not
  // repeated: a person learns at once, not after seven seconds of back-off.
  defaultOptions: { queries: { refetchOnWindowFocus: false, retry: retryUnlessRefused } },
});

// One person's data must not show to the next one signing in on a shared ward PC.
let signedInUser = getSession()?.user.sub;
subscribeSession(() => {
  const user = getSession()?.user.sub;
  if (user !== signedInUser) queryClient.clear();
  signedInUser = user;
});

/**
 * The grpc-web transport and the query cache, as a layout route around the pages that load
 * data. Loaded with the first such page (a route's `lazy`), not with the sign-in page.
 */
export function DataProvider() {
  return (
    <DataProviders>
      <Outlet />
    </DataProviders>
  );
}

/** The same around given children: the portal's layout on a page outside the data routes. */
export function DataProviders({ children }: { children: ReactNode }) {
  return (
    <TransportProvider transport={transport}>
      <QueryClientProvider client={queryClient}>
        {children}
        <LeaveGuard />
      </QueryClientProvider>
    </TransportProvider>
  );
}
