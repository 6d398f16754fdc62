// Issue 39.3: a person synced from HR, with no password, signs in without an administrator
// typing one: by the invitation an administrator sends from the user page (mailed through the
// test SMTP sink of global setup), or by a printed first sign-in code.
import type { Browser, Page } from '@playwright/test';

import { admin } from '../support/accounts';
import { mailTo } from '../support/mail';
import { restAs, type Rest } from '../support/rest';
import { signIn } from './session';
import { expect, test } from './test';

const PASSWORD = 'ромашка-в-ординаторской';

type Synced = { people: { employeeNumber: string; userId: number }[] };

/** One person as HR sends them (no password), and their user id. */
async function syncPerson(rest: Rest, login: string, email: string): Promise<number> {
  const number = `E2E-${login}`;
  const synced = await rest.post<Synced>('/api/integration/sync-staff', {
    people: [
      { employeeNumber: number, surname: 'Приглашённая', name: 'Вера', lastName: 'Павловна', login, email },
    ],
  });
  const person = synced.people.find((p) => p.employeeNumber === number);
  if (!person) throw new Error(`${login} was not synced`);
  return person.userId;
}

/** A browser of the person's own, signed out. */
async function personsBrowser(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: process.env.PORTAL_E2E_URL, locale: 'ru-RU' });
  return context.newPage();
}

const userPage = (userId: number) => `/admin/users-management/admin-users/${userId}`;

test('an invited person opens the mailed link, chooses a password and is signed in', async ({
  page,
  browser,
  request,
}) => {
  const rest = await restAs(request, admin);
  const login = `invited-${Date.now().toString(36)}`;
  const email = `${login}@hospital.example`;
  const userId = await syncPerson(rest, login, email);

  await signIn(page, admin);
  await page.goto(userPage(userId));
  await page.getByRole('button', { name: 'Отправить приглашение' }).click();
  await expect(page.getByText(`Приглашение отправлено на ${email}`)).toBeVisible();

  const text = await mailTo(email);
  expect(text).toContain(`Ваш логин: ${login}`);
  expect(text).toContain('Ссылка действует 72 часа и только один раз.');
  const link = /(https?:\/\/\S+\/first-sign-in\?token=[\w-]+&login=\S+)/.exec(text)?.[1];
  expect(link).toBeDefined();

  const person = await personsBrowser(browser);
  await person.goto(link ?? '');
  await expect(person.getByRole('heading', { name: 'Добро пожаловать в портал' })).toBeVisible();
  await expect(person.getByText(`Ваш логин: ${login}`)).toBeVisible();
  await person.getByLabel('Пароль:', { exact: true }).fill(PASSWORD);
  await person.getByLabel('Повторите пароль:').fill(PASSWORD);
  await person.getByRole('button', { name: 'Сохранить пароль и войти' }).click();
  await expect(person).toHaveURL(/\/home$/);

  // The link works once.
  await person.context().clearCookies();
  await person.goto(link ?? '');
  await person.getByLabel('Пароль:', { exact: true }).fill('another-long-password');
  await person.getByLabel('Повторите пароль:').fill('another-long-password');
  await person.getByRole('button', { name: 'Сохранить пароль и войти' }).click();
  await expect(person.getByRole('alert')).toContainText(
    'Ссылка приглашения недействительна, уже использована',
  );
  await person.context().close();
});

test('a printed first sign-in code signs a person without e-mail in', async ({
  page,
  browser,
  request,
  saveScreenshot,
}) => {
  const rest = await restAs(request, admin);
  const login = `paper-${Date.now().toString(36)}`;
  const userId = await syncPerson(rest, login, '');

  await signIn(page, admin);
  await page.goto(userPage(userId));
  await page.getByRole('button', { name: 'Код для первого входа' }).click();
  const sheet = page.getByRole('region', { name: 'Код для первого входа в портал' });
  await expect(sheet).toContainText('Приглашённая Вера Павловна');
  await expect(sheet).toContainText(login);
  await expect(sheet).toContainText('/first-sign-in');
  await expect(sheet).toContainText('Действует до');
  await expect(page.getByRole('button', { name: 'Печать' })).toBeVisible();
  await saveScreenshot('first-sign-in-code-sheet');
  await page.emulateMedia({ media: 'print' });
  await expect(page.getByRole('button', { name: 'Печать' })).toBeHidden();
  await saveScreenshot('first-sign-in-code-sheet-print');
  await page.emulateMedia({ media: 'screen' });
  const code = (await sheet.getByText(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/).textContent()) ?? '';
  expect(code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);

  const person = await personsBrowser(browser);
  await person.goto('/login');
  await person.getByRole('link', { name: 'Первый вход по коду' }).click();
  await expect(person).toHaveURL(/\/first-sign-in$/);
  await person.getByLabel('Логин:').fill(login);
  await person.getByLabel('Код для первого входа:').fill('AAAA-BBBB-CCCC');
  await person.getByLabel('Новый пароль:').fill(PASSWORD);
  await person.getByLabel('Повторите пароль:').fill(PASSWORD);
  await person.getByRole('button', { name: 'Сохранить пароль и войти' }).click();
  await expect(person.getByRole('alert')).toContainText('Неверный логин или код для первого входа');
  await person.getByLabel('Код для первого входа:').fill(code.toLowerCase());
  // The person's page, not the administrator's (the fixture's).
  await person.screenshot({ path: 'e2e/screenshots/first-sign-in-page.png', fullPage: true });
  await person.getByRole('button', { name: 'Сохранить пароль и войти' }).click();
  await expect(person).toHaveURL(/\/home$/);
  await person.context().close();
});
