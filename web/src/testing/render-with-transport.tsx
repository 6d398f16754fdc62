import type { Transport } from '@connectrpc/connect';
import { TransportProvider } from '@connectrpc/connect-query';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';

import { AppProvider } from '@/app/provider';

/**
 * Renders one page at `path` (matched by `pattern`, so its route parameters are set) over
 * `transport`, typically `createRouterTransport` with an in-memory service.
 */
export function renderPage(
  page: ReactNode,
  { transport, pattern, path }: { transport: Transport; pattern: string; path: string },
) {
  const router = createMemoryRouter([{ path: pattern, element: page }], { initialEntries: [path] });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <AppProvider>
      <TransportProvider transport={transport}>
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </TransportProvider>
    </AppProvider>,
  );
  return router;
}
