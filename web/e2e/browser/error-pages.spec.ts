import { nurse } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

test('an unknown address shows the not-found page, whose button leads home', async ({
  page,
  saveScreenshot,
}) => {
  await signIn(page, nurse);
  await page.goto('/no/such/page');
  await expect(page.getByRole('heading', { name: 'Такой страницы не существует :(' })).toBeVisible();
  await saveScreenshot('not-found');

  await page.getByRole('link', { name: 'На главную' }).click();
  await expect(page).toHaveURL(/\/home$/);
});

test('the no-access page leads to the sign-in page', async ({ page, saveScreenshot }) => {
  await page.goto('/not-allowed');
  await expect(page.getByRole('heading', { name: 'У вас нет доступа к данному ресурсу' })).toBeVisible();
  await saveScreenshot('no-access');

  await page.getByRole('link', { name: 'На страницу авторизации' }).click();
  await expect(page).toHaveURL(/\/login$/);
});
