import { doctor, nurse } from '../support/accounts';
import { expect, test } from './test';

test('signing in shows the green alert, then home about 1.5 s later', async ({ page, saveScreenshot }) => {
  await page.goto('/login');
  await expect(page.getByLabel('Введите логин:')).toHaveAttribute('placeholder', 'Логин');
  await expect(page.getByLabel('Введите пароль:')).toHaveAttribute('placeholder', 'Пароль');
  await saveScreenshot('login');

  await page.getByLabel('Введите логин:').fill(nurse.login);
  await page.getByLabel('Введите пароль:').fill(nurse.password);
  await page.getByRole('button', { name: 'Войти' }).click();

  const alert = page.getByRole('alert');
  await expect(alert).toHaveText('Вы успешно авторизовались.');
  const shownAt = Date.now();
  await saveScreenshot('login-success');
  await expect(page).toHaveURL(/\/home$/);
  expect(Date.now() - shownAt).toBeGreaterThan(1000);
  expect(await page.evaluate(() => localStorage.getItem('token'))).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
});

// The only failed sign-in of the suite (see ./session.ts).
test("a wrong password shows the server's message; typing clears it", async ({ page, saveScreenshot }) => {
  await page.goto('/login');
  await page.getByLabel('Введите логин:').fill(doctor.login);
  await page.getByLabel('Введите пароль:').fill('not-the-password');
  await page.getByRole('button', { name: 'Войти' }).click();

  await expect(page.getByRole('alert')).toHaveText('Неверный логин или пароль');
  await saveScreenshot('login-failed');

  await page.getByLabel('Введите пароль:').pressSequentially('1');
  await expect(page.getByRole('alert')).toBeHidden();
  await expect(page).toHaveURL(/\/login$/);
});

test('the login page fits a phone', async ({ page, saveScreenshot }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/login');
  await expect(page.getByRole('button', { name: 'Войти' })).toBeVisible();
  await saveScreenshot('login-phone');
});

test('signed out, /courses leads to the no-access page', async ({ page }) => {
  await page.goto('/courses');
  // Keeping the address asked for, to open after the sign-in (sign-in-return.spec.ts).
  await expect(page).toHaveURL(/\/not-allowed\?next=%2Fcourses$/);
  await expect(page.getByRole('heading', { name: 'У вас нет доступа к данному ресурсу' })).toBeVisible();
});
