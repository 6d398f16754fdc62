import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { AppProvider } from '@/app/provider';
import { routes } from '@/app/router';
import { reloadGuardMs, reloadPage } from '@/lib/stale-build';
import { settle } from '@/testing/render-route';
import { signInAs } from '@/testing/session';

vi.mock('@/lib/stale-build', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@/lib/stale-build')>()),
  reloadPage: vi.fn(),
}));

// What Chromium says when a route's file is gone from the server after a deploy.
const goneAfterDeploy = new TypeError(
  'Failed to fetch dynamically imported module: http://127.0.0.1/assets/cabinet-page-OLD.js',
);

/** The portal's real route table, with the route at `path` failing to load its code. */
function failingAt(table: RouteObject[], path: string, error: Error): RouteObject[] {
  return table.map((route): RouteObject => {
    if (route.path === path) return { ...route, lazy: () => Promise.reject(error) };
    return route.children ? { ...route, children: failingAt(route.children, path, error) } : route;
  });
}

async function open(path: string, failing: string, error: Error) {
  const router = createMemoryRouter(failingAt(routes, failing, error), { initialEntries: [path] });
  render(
    <AppProvider>
      <RouterProvider router={router} />
    </AppProvider>,
  );
  await settle(router);
  return router;
}

const reloadMark = 'portal.reloaded-for-new-build';

describe('a page whose code fails to load', () => {
  beforeEach(() => sessionStorage.clear());
  afterEach(() => vi.mocked(reloadPage).mockClear());

  it('reloads once by itself to the new build after a deploy', async () => {
    signInAs();
    await open('/cabinet', '/cabinet', goneAfterDeploy);
    expect(reloadPage).toHaveBeenCalledTimes(1);
    expect(Number(sessionStorage.getItem(reloadMark))).toBeGreaterThan(Date.now() - 5_000);
    expect(screen.queryByText(/Unexpected Application Error|Hey developer/)).not.toBeInTheDocument();
  });

  it('asks in Russian instead of reloading again right after a reload', async () => {
    sessionStorage.setItem(reloadMark, String(Date.now() - 10_000));
    signInAs();
    await open('/cabinet', '/cabinet', goneAfterDeploy);

    expect(reloadPage).not.toHaveBeenCalled();
    expect(screen.getByRole('heading', { name: 'Обновите страницу' })).toBeInTheDocument();
    expect(screen.getByText(/Портал обновился/)).toBeInTheDocument();
    // Inside the portal's layout: the header stays.
    expect(screen.getByRole('banner')).toHaveTextContent('Смирнова Ольга Викторовна');
    expect(document.body).not.toHaveTextContent(/Unexpected|developer|Error/);

    await userEvent.click(screen.getByRole('button', { name: 'Обновить страницу' }));
    expect(reloadPage).toHaveBeenCalledTimes(1);
  });

  it('reloads by itself again after a later deploy', async () => {
    sessionStorage.setItem(reloadMark, String(Date.now() - reloadGuardMs - 1_000));
    signInAs();
    await open('/cabinet', '/cabinet', goneAfterDeploy);
    expect(reloadPage).toHaveBeenCalledTimes(1);
  });

  it('does not reload without a network: it says so', async () => {
    const online = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    try {
      signInAs();
      await open('/cabinet', '/cabinet', goneAfterDeploy);
      expect(reloadPage).not.toHaveBeenCalled();
      expect(screen.getByText(/Нет связи с порталом/)).toBeInTheDocument();
    } finally {
      online.mockRestore();
    }
  });

  it('outside the layout (the sign-in page) shows a page of its own', async () => {
    sessionStorage.setItem(reloadMark, String(Date.now()));
    await open('/login', '/login', goneAfterDeploy);
    expect(screen.getByRole('heading', { level: 1, name: 'Обновите страницу' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Обновить страницу' })).toBeInTheDocument();
  });
});

describe('a page that fails for another reason', () => {
  it('says so in Russian and offers a reload, without reloading by itself', async () => {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      signInAs();
      await act(() => open('/cabinet', '/cabinet', new Error('Cannot read properties of undefined')));
      expect(reloadPage).not.toHaveBeenCalled();
      expect(screen.getByRole('heading', { name: 'Что-то пошло не так' })).toBeInTheDocument();
      expect(document.body).not.toHaveTextContent(/Cannot read|Unexpected|developer/);
    } finally {
      quiet.mockRestore();
      warn.mockRestore();
    }
  });
});
