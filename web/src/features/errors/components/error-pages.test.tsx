import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { renderRoute, settle } from '@/testing/render-route';
import { signInAs } from '@/testing/session';

describe('error pages', () => {
  it('an unknown address says the page does not exist and leads home', async () => {
    signInAs();
    const router = await renderRoute('/no/such/page');
    expect(screen.getByRole('heading', { name: 'Такой страницы не существует :(' })).toBeInTheDocument();

    await userEvent.click(screen.getByRole('link', { name: 'На главную' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/home'));
  });

  it('a signed-in person without the right stays in the portal and is led home', async () => {
    signInAs({ rights: [] });
    const router = await renderRoute('/admin');
    expect(router.state.location.pathname).toBe('/not-allowed');
    expect(screen.getByRole('heading', { name: 'У вас нет доступа к данному ресурсу' })).toBeInTheDocument();
    expect(screen.getByRole('banner')).toHaveTextContent('Смирнова Ольга Викторовна');
    expect(screen.getAllByRole('navigation', { name: 'Навигация' }).length).toBeGreaterThan(0);
    expect(screen.queryByRole('link', { name: 'На страницу авторизации' })).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('link', { name: 'На главную' }));
    await settle(router);
    expect(router.state.location.pathname).toBe('/home');
  });

  it('the no-access page says so and leads to sign-in', async () => {
    const router = await renderRoute('/not-allowed');
    expect(screen.getByRole('heading', { name: 'У вас нет доступа к данному ресурсу' })).toBeInTheDocument();

    await userEvent.click(screen.getByRole('link', { name: 'На страницу авторизации' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  });
});
