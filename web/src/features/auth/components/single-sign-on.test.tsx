import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { singleSignOnName } from '@/lib/session/sign-in';
import { renderRoute, settle } from '@/testing/render-route';

vi.mock('@/lib/session/sign-in', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@/lib/session/sign-in')>()),
  singleSignOnName: vi.fn(() => Promise.resolve('')),
}));

describe('single sign-on on the sign-in page (issue 39.2)', () => {
  afterEach(() => vi.mocked(singleSignOnName).mockReset());

  it('offers the provider by its name, keeping the page asked for', async () => {
    vi.mocked(singleSignOnName).mockResolvedValue('Keycloak больницы');
    await renderRoute('/login?next=%2Fcabinet');
    const button = await screen.findByRole('link', { name: 'Войти через Keycloak больницы' });
    expect(button).toHaveAttribute('href', '/api/auth/oidc/start?returnTo=%2Fcabinet');
  });

  it('offers nothing when the portal has no provider', async () => {
    vi.mocked(singleSignOnName).mockResolvedValue('');
    await renderRoute('/login');
    await screen.findByRole('button', { name: 'Войти' });
    expect(screen.queryByRole('link', { name: /Войти через/ })).toBeNull();
  });

  it.each([
    ['NOT_IN_PORTAL', 'вашей учётной записи нет на портале'],
    ['SSO_CANCELLED', 'Вход через единую учётную запись отменён.'],
    ['SSO_TOKEN_INVALID', 'Не удалось войти через единую учётную запись. Попробуйте ещё раз.'],
    ['<script>', 'Не удалось войти через единую учётную запись. Попробуйте ещё раз.'],
  ])('says in Russian why the provider’s way back ended here (%s)', async (reason, message) => {
    vi.mocked(singleSignOnName).mockResolvedValue('Keycloak');
    await renderRoute(`/login?sso-error=${encodeURIComponent(reason)}`);
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
  });

  it('takes the second step’s token from the fragment and drops it from the address', async () => {
    const router = await renderRoute('/login/code#mfa=step-token&next=%2Fcabinet');
    await settle(router);
    expect(await screen.findByRole('heading', { level: 1 })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login/code');
    expect(router.state.location.hash).toBe('');
    expect(router.state.location.state).toEqual({ mfaToken: 'step-token', next: '/cabinet' });
  });
});
