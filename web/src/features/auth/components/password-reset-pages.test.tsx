import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { renderRoute, settle } from '@/testing/render-route';

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
const ok = () => envelope(200, { success: true, data: null, errorMessage: null });
const INVALID_LINK = 'Ссылка для восстановления пароля недействительна или устарела. Запросите новую.';

describe('«Забыли пароль?»', () => {
  const fetchMock = vi.fn<typeof fetch>();

  beforeEach(() => vi.stubGlobal('fetch', fetchMock));
  afterEach(() => {
    vi.unstubAllGlobals();
    fetchMock.mockReset();
  });

  it('the sign-in page links to it', async () => {
    const router = await renderRoute('/login');
    await userEvent.click(screen.getByRole('link', { name: 'Забыли пароль?' }));
    await settle(router);
    expect(router.state.location.pathname).toBe('/forgot-password');
  });

  it('asks for a link and says the same whoever the login is', async () => {
    fetchMock.mockReturnValueOnce(ok());
    await renderRoute('/forgot-password');
    await userEvent.type(screen.getByLabelText('Введите логин:'), 'nurse');
    await userEvent.click(screen.getByRole('button', { name: 'Отправить ссылку' }));

    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Если такой пользователь есть и у него указана почта, мы отправили ссылку.',
    );
    expect(fetchMock).toHaveBeenCalledWith(
      '/api/auth/request-password-reset',
      expect.objectContaining({ method: 'POST', body: JSON.stringify({ login: 'nurse' }) }),
    );
    expect(screen.queryByRole('button', { name: 'Отправить ссылку' })).not.toBeInTheDocument();
  });

  it('sends people whose password the domain checks to its own reset', async () => {
    const notice = { directorySignIn: true, directoryResetUrl: 'https://passwordreset.hospital.local/' };
    fetchMock.mockReturnValueOnce(envelope(200, { success: true, data: notice, errorMessage: null }));
    await renderRoute('/forgot-password');
    await userEvent.type(screen.getByLabelText('Введите логин:'), 'ivanova');
    await userEvent.click(screen.getByRole('button', { name: 'Отправить ссылку' }));

    const alerts = await screen.findAllByRole('alert');
    expect(alerts[1]).toHaveTextContent('Если вы входите с паролем домена');
    expect(screen.getByRole('link', { name: 'смените пароль домена здесь' })).toHaveAttribute(
      'href',
      'https://passwordreset.hospital.local/',
    );
  });

  it('without a reset address sends them to the IT department', async () => {
    const notice = { directorySignIn: true, directoryResetUrl: '' };
    fetchMock.mockReturnValueOnce(envelope(200, { success: true, data: notice, errorMessage: null }));
    await renderRoute('/forgot-password');
    await userEvent.type(screen.getByLabelText('Введите логин:'), 'ivanova');
    await userEvent.click(screen.getByRole('button', { name: 'Отправить ссылку' }));

    const alerts = await screen.findAllByRole('alert');
    expect(alerts[1]).toHaveTextContent('пароль меняется в домене — обратитесь в ИТ-отдел.');
  });

  it('sets the new password with the link and the sign-in page says so', async () => {
    fetchMock.mockReturnValueOnce(ok());
    const router = await renderRoute('/reset-password?token=abc');
    await userEvent.type(screen.getByLabelText('Новый пароль:'), 'ромашка-в-ординаторской');
    await userEvent.type(screen.getByLabelText('Повторите пароль:'), 'ромашка-в-ординаторской');
    await userEvent.click(screen.getByRole('button', { name: 'Сохранить пароль' }));
    await settle(router);

    expect(fetchMock).toHaveBeenCalledWith(
      '/api/auth/reset-password',
      expect.objectContaining({
        method: 'POST',
        body: JSON.stringify({ token: 'abc', password: 'ромашка-в-ординаторской' }),
      }),
    );
    expect(router.state.location.pathname).toBe('/login');
    expect(await screen.findByRole('alert')).toHaveTextContent('Пароль изменён. Войдите с новым паролем.');
  });

  it('refuses two different passwords before asking the server', async () => {
    await renderRoute('/reset-password?token=abc');
    await userEvent.type(screen.getByLabelText('Новый пароль:'), 'first-long-password');
    await userEvent.type(screen.getByLabelText('Повторите пароль:'), 'second-long-password');
    await userEvent.click(screen.getByRole('button', { name: 'Сохранить пароль' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Пароли не совпадают');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("shows the server's refusal of a used link and offers a new one", async () => {
    fetchMock.mockReturnValueOnce(envelope(409, { success: false, data: null, errorMessage: INVALID_LINK }));
    await renderRoute('/reset-password?token=used');
    await userEvent.type(screen.getByLabelText('Новый пароль:'), 'a-long-new-password');
    await userEvent.type(screen.getByLabelText('Повторите пароль:'), 'a-long-new-password');
    await userEvent.click(screen.getByRole('button', { name: 'Сохранить пароль' }));

    expect(await screen.findByRole('alert')).toHaveTextContent(INVALID_LINK);
    expect(screen.getByRole('link', { name: 'Запросить новую ссылку' })).toHaveAttribute(
      'href',
      '/forgot-password',
    );
  });

  it('without a token says the link is not valid', async () => {
    await renderRoute('/reset-password');
    expect(screen.getByRole('alert')).toHaveTextContent(INVALID_LINK);
    expect(screen.getByRole('button', { name: 'Сохранить пароль' })).toBeDisabled();
  });
});
