import { act, render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';

import { AppProvider } from '@/app/provider';
import { routes } from '@/app/router';

type Router = ReturnType<typeof createMemoryRouter>;

/**
 * Waits until the router has loaded the code of every route it matched (routes load
 * lazily) and followed every redirect a page made on showing.
 */
export async function settle(router: Router) {
  const idle = () => router.state.initialized && router.state.navigation.state === 'idle';
  const untilIdle = () =>
    new Promise<void>((done) => {
      if (idle()) {
        done();
        return;
      }
      const stop = router.subscribe(() => {
        if (!idle()) return;
        stop();
        done();
      });
    });
  // A page shown after a load may redirect at once: still idle after its effects ran means settled.
  for (let round = 0; round < 10; round++) {
    await act(untilIdle);
    if (idle()) return;
  }
  throw new Error(`the router did not settle at ${router.state.location.pathname}`);
}

/** Renders the real app (providers and route tree) at `path`; returns the router to inspect. */
export async function renderRoute(path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  render(
    <AppProvider>
      <RouterProvider router={router} />
    </AppProvider>,
  );
  await settle(router);
  return router;
}
