// Issue 39.3: «Забыли пароль?» on the sign-in page mails a one-time link (through the test
// SMTP sink of global setup); the link's page sets a new password, once.
import { admin } from '../support/accounts';
import { mailTo } from '../support/mail';
import { restAs } from '../support/rest';
import { signIn } from './session';
import { expect, test } from './test';

const INVALID_LINK = 'Ссылка для восстановления пароля недействительна или устарела. Запросите новую.';

test('a forgotten password is set with the mailed link, and the link works once', async ({
  page,
  request,
  saveScreenshot,
}) => {
  const rest = await restAs(request, admin);
  const login = `reset-${test.info().project.name}-${Date.now().toString(36)}`;
  const email = `${login}@hospital.example`;
  await rest.post('/api/user/create-user', {
    name: 'Анна',
    surname: 'Забывчивая',
    login,
    password: 'old-password-of-anna',
    email,
    status: { id: 1 },
  });

  await page.goto('/login');
  await page.getByRole('link', { name: 'Забыли пароль?' }).click();
  await expect(page).toHaveURL(/\/forgot-password$/);
  await page.getByLabel('Введите логин:').fill(login);
  await page.getByRole('button', { name: 'Отправить ссылку' }).click();
  await expect(page.getByRole('alert')).toContainText(
    'Если такой пользователь есть и у него указана почта, мы отправили ссылку.',
  );
  await saveScreenshot('password-reset-requested');

  const text = await mailTo(email);
  expect(text).toContain(
    'Ссылка действует 30 минут. Если вы не запрашивали восстановление, ничего делать не нужно.',
  );
  const link = /(https?:\/\/\S+\/reset-password\?token=[\w-]+)/.exec(text)?.[1];
  expect(link).toBeDefined();

  const newPassword = 'ромашка-в-ординаторской';
  await page.goto(link ?? '');
  await page.getByLabel('Новый пароль:').fill(newPassword);
  await page.getByLabel('Повторите пароль:').fill(newPassword);
  await saveScreenshot('password-reset-form');
  await page.getByRole('button', { name: 'Сохранить пароль' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('alert')).toHaveText('Пароль изменён. Войдите с новым паролем.');

  await signIn(page, { login, password: newPassword });

  await page.goto(link ?? '');
  await page.getByLabel('Новый пароль:').fill('another-long-password');
  await page.getByLabel('Повторите пароль:').fill('another-long-password');
  await page.getByRole('button', { name: 'Сохранить пароль' }).click();
  await expect(page.getByRole('alert')).toHaveText(INVALID_LINK);
});
