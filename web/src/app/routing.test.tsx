import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { endSession } from '@/lib/session/session';
import { renderRoute } from '@/testing/render-route';
import { signInAs } from '@/testing/session';

const adminRights = ['UserManagement', 'EducationManagement', 'EquipmentEditing'];

describe('access to routes', () => {
  afterEach(() => vi.unstubAllGlobals());

  it.each(['/home', '/courses', '/departments', '/cabinet', '/admin'])(
    'signed out, %s leads to the no-access page',
    async (path) => {
      const router = await renderRoute(path);
      expect(router.state.location.pathname).toBe('/not-allowed');
    },
  );

  it('signed out, a deep link keeps its address through the no-access page to the sign-in', async () => {
    const router = await renderRoute('/courses/1/article/2?x=1');
    expect(router.state.location.pathname).toBe('/not-allowed');
    expect(router.state.location.search).toBe(`?next=${encodeURIComponent('/courses/1/article/2?x=1')}`);
    expect(screen.getByRole('link', { name: 'На страницу авторизации' })).toHaveAttribute(
      'href',
      `/login?next=${encodeURIComponent('/courses/1/article/2?x=1')}`,
    );
  });

  it('the no-access page passes on no address but one of the portal', async () => {
    await renderRoute(`/not-allowed?next=${encodeURIComponent('https://evil.example/')}`);
    expect(screen.getByRole('link', { name: 'На страницу авторизации' })).toHaveAttribute('href', '/login');
  });

  it.each(['/login', '/not-allowed', '/short-instruction/5', '/no/such/page'])(
    'signed out, %s opens as it is',
    async (path) => {
      const router = await renderRoute(path);
      expect(router.state.location.pathname).toBe(path);
    },
  );

  it('a learner sees neither the admin panel link nor its tile, and /admin is refused', async () => {
    signInAs({ rights: [] });
    await renderRoute('/home');
    expect(screen.getByRole('link', { name: 'Обучение Курсы, статьи и тесты' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Админ-панель' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /Панель администратора/ })).not.toBeInTheDocument();

    const router = await renderRoute('/admin');
    expect(router.state.location.pathname).toBe('/not-allowed');
  });

  it('an admin sees the admin panel link and tile', async () => {
    signInAs({ rights: adminRights });
    await renderRoute('/home');
    expect(screen.getAllByRole('link', { name: 'Админ-панель' })[0]).toHaveAttribute('href', '/admin');
    expect(screen.getByRole('link', { name: /Панель администратора/ })).toHaveAttribute('href', '/admin');
  });

  it('the admin sections show to the holders of their rights; statistics to every admin', async () => {
    signInAs({ rights: ['EducationManagement', 'EquipmentEditing'] });
    await renderRoute('/admin');
    const sections = within(screen.getByRole('tablist', { name: 'Разделы админ-панели' }));
    expect(sections.getAllByRole('tab').map((tab) => tab.textContent)).toEqual([
      'Обучение',
      'Оборудование',
      'Статистика',
    ]);
  });

  it('a section is refused without its right', async () => {
    signInAs({ rights: ['EducationManagement'] });
    const router = await renderRoute('/admin/users-management/admin-users');
    expect(router.state.location.pathname).toBe('/not-allowed');
  });

  it('user management has the external systems tab, for the holders of its right only', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn<typeof fetch>(() =>
        Promise.resolve(Response.json({ success: true, data: [], errorMessage: null })),
      ),
    );
    signInAs({ rights: ['UserManagement'] });
    await renderRoute('/admin/users-management/service-accounts');
    const tabs = within(screen.getByRole('tablist', { name: 'Разделы управления пользователями' }));
    expect(tabs.getByRole('tab', { name: 'Внешние системы' })).toHaveAttribute('aria-selected', 'true');
    expect(await screen.findByText('Внешних систем пока нет.')).toBeVisible();

    cleanup();
    signInAs({ rights: ['EducationManagement', 'EquipmentEditing'] });
    const router = await renderRoute('/admin/users-management/service-accounts');
    expect(router.state.location.pathname).toBe('/not-allowed');
  });

  it('external home tiles open a new tab', async () => {
    signInAs();
    await renderRoute('/home');
    const tile = screen.getByRole('link', { name: /Реестр лекарственных средств/ });
    expect(tile).toHaveAttribute('target', '_blank');
    expect(tile).toHaveAttribute('rel', 'noopener noreferrer');
    expect(screen.getByRole('link', { name: /Оборудование/ })).toHaveAttribute('href', '/departments');
  });

  it('breadcrumbs lead from home through the path to the current page', async () => {
    signInAs({ rights: adminRights });
    await renderRoute('/admin/statistics');
    const trail = within(screen.getByRole('navigation', { name: 'Навигационная цепочка' }));
    expect(trail.getByRole('link', { name: 'Главная' })).toHaveAttribute('href', '/home');
    expect(trail.getByRole('link', { name: 'Админ-панель' })).toHaveAttribute('href', '/admin');
    expect(trail.getByText('Статистика')).toHaveAttribute('aria-current', 'page');
  });

  it('a session that ends while inside leads to the sign-in page', async () => {
    signInAs();
    const router = await renderRoute('/home');
    act(() => endSession());
    // The sign-in page's code loads on the way (a lazy route).
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  });

  it('Выход revokes the session and opens the sign-in page', async () => {
    const fetchMock = vi.fn<typeof fetch>(() =>
      Promise.resolve(new Response(JSON.stringify({ success: true, data: null, errorMessage: null }))),
    );
    vi.stubGlobal('fetch', fetchMock);
    signInAs();
    const router = await renderRoute('/home');

    await userEvent.click(screen.getByRole('button', { name: 'Выход' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(fetchMock).toHaveBeenCalledWith('/api/auth/logout', expect.objectContaining({ method: 'POST' }));
    expect(localStorage.getItem('token')).toBeNull();
  });
});
