import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { renderRoute, settle } from '@/testing/render-route';
import { fakeToken, signInAs } from '@/testing/session';

// The sign-in page asks whether single sign-on is on; these tests' fetch answers only the
// calls they make, so that question is answered here: it is off.
vi.mock('@/lib/session/sign-in', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@/lib/session/sign-in')>()),
  singleSignOnName: () => Promise.resolve(''),
}));

const envelope = (status: number, body: object) =>
  Promise.resolve(
    new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }),
  );

describe('the login page', () => {
  const fetchMock = vi.fn<typeof fetch>();

  beforeEach(() => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    vi.stubGlobal('fetch', fetchMock);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    fetchMock.mockReset();
  });

  const user = () => userEvent.setup({ advanceTimers: (ms) => vi.advanceTimersByTime(ms) });

  async function signIn(login: string, password: string) {
    const typing = user();
    await typing.type(screen.getByLabelText('Введите логин:'), login);
    await typing.type(screen.getByLabelText('Введите пароль:'), password);
    await typing.click(screen.getByRole('button', { name: 'Войти' }));
  }

  it('labels its fields as the spec says', async () => {
    await renderRoute('/login');
    expect(screen.getByLabelText('Введите логин:')).toHaveAttribute('placeholder', 'Логин');
    expect(screen.getByLabelText('Введите логин:')).toBeRequired();
    expect(screen.getByLabelText('Введите пароль:')).toHaveAttribute('placeholder', 'Пароль');
    expect(screen.getByLabelText('Введите пароль:')).toHaveAttribute('type', 'password');
    expect(screen.getByLabelText('Введите пароль:')).toBeRequired();
  });

  it('on success stores the session, says so and opens home after 1.5 s', async () => {
    const token = fakeToken({ login: 'nurse' });
    fetchMock.mockReturnValueOnce(
      envelope(200, { success: true, data: { accessToken: token, expiresIn: 900 }, errorMessage: null }),
    );
    const router = await renderRoute('/login');

    await signIn('nurse', 'nurse-demo-password');

    expect(await screen.findByRole('alert')).toHaveTextContent('Вы успешно авторизовались.');
    expect(fetchMock).toHaveBeenCalledWith(
      '/api/auth/login',
      expect.objectContaining({
        method: 'POST',
        credentials: 'same-origin',
        body: JSON.stringify({ login: 'nurse', password: 'nurse-demo-password' }),
      }),
    );
    expect(localStorage.getItem('token')).toBe(token);

    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(router.state.location.pathname).toBe('/login');
    await act(() => vi.advanceTimersByTimeAsync(600));
    await settle(router);
    expect(router.state.location.pathname).toBe('/home');
  });

  it.each([
    ['/cabinet', '/cabinet'],
    ['/courses/1/article/2?tab=test#top', '/courses/1/article/2?tab=test#top'],
    // Nowhere but this portal's own pages: no open redirect.
    ['//evil.example/login', '/home'],
    ['https://evil.example/', '/home'],
    ['/\\evil.example', '/home'],
    ['/\t/evil.example', '/home'],
    ['javascript:alert(1)', '/home'],
    ['/not-allowed', '/home'],
  ])('after a sign-in with ?next=%s opens %s', async (next, opened) => {
    fetchMock.mockReturnValueOnce(
      envelope(200, {
        success: true,
        data: { accessToken: fakeToken(), expiresIn: 900 },
        errorMessage: null,
      }),
    );
    const router = await renderRoute(`/login?${new URLSearchParams({ next }).toString()}`);
    await signIn('nurse', 'nurse-demo-password');
    await screen.findByRole('alert');
    await act(() => vi.advanceTimersByTimeAsync(1600));
    await settle(router);
    const { pathname, search, hash } = router.state.location;
    expect(`${pathname}${search}${hash}`).toBe(opened);
  });

  it('a person already signed in who opens it goes home', async () => {
    signInAs();
    const router = await renderRoute('/login');
    expect(router.state.location.pathname).toBe('/home');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("on failure shows the server's message, and typing clears it", async () => {
    fetchMock.mockReturnValueOnce(
      envelope(401, { success: false, data: null, errorMessage: 'Неверный логин или пароль' }),
    );
    const router = await renderRoute('/login');

    await signIn('nurse', 'wrong');

    expect(await screen.findByRole('alert')).toHaveTextContent('Неверный логин или пароль');
    expect(localStorage.getItem('token')).toBeNull();
    await act(() => vi.advanceTimersByTimeAsync(2000));
    expect(router.state.location.pathname).toBe('/login');

    await user().type(screen.getByLabelText('Введите пароль:'), 'x');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('typing in the login field clears the alert too', async () => {
    fetchMock.mockReturnValueOnce(
      envelope(401, { success: false, data: null, errorMessage: 'Неверный логин или пароль' }),
    );
    await renderRoute('/login');
    await signIn('nurse', 'wrong');
    await screen.findByRole('alert');

    await user().type(screen.getByLabelText('Введите логин:'), 'a');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('too many attempts (429) shows its Russian message', async () => {
    fetchMock.mockReturnValueOnce(
      envelope(429, {
        success: false,
        data: null,
        errorMessage: 'Слишком много неудачных попыток входа. Попробуйте позже.',
      }),
    );
    await renderRoute('/login');
    await signIn('nurse', 'wrong');

    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Слишком много неудачных попыток входа. Попробуйте позже.',
    );
  });

  it('an unreachable server gets the generic request message', async () => {
    fetchMock.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    await renderRoute('/login');
    await signIn('nurse', 'nurse-demo-password');

    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Произошла ошибка при выполнении запроса. Пожалуйста, попробуйте позже.',
    );
  });
});
