// Issue 37 point 17: a page opened signed out (a bookmark, a link in a message) opens again
// after the sign-in, and only a page of the portal itself: a crafted link leads nowhere else.
import type { Page } from '@playwright/test';

import { nurse } from '../support/accounts';
import { expect, test } from './test';

const desktop = { width: 1366, height: 900 };
const phone = { width: 360, height: 740 };

async function signInHere(page: Page) {
  await page.getByLabel('Введите логин:').fill(nurse.login);
  await page.getByLabel('Введите пароль:').fill(nurse.password);
  await page.getByRole('button', { name: 'Войти' }).click();
}

for (const [name, viewport] of Object.entries({ desktop, phone })) {
  test(`${name}: a deep link opened signed out opens after the sign-in`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await page.goto('/courses/1/article/1');
    await expect(page).toHaveURL(/\/not-allowed\?next=/);
    await page.getByRole('link', { name: 'На страницу авторизации' }).click();
    await expect(page).toHaveURL(/\/login\?next=/);

    await signInHere(page);
    await expect(page).toHaveURL(/\/courses\/1\/article\/1$/);
    await expect(page.getByRole('button', { name: 'Выход' })).toBeVisible();
  });
}

for (const next of ['//evil.example/login', 'https://evil.example/', '/\\evil.example']) {
  test(`?next=${next} leads home, not away from the portal`, async ({ page }) => {
    await page.goto(`/login?${new URLSearchParams({ next }).toString()}`);
    await signInHere(page);
    await expect(page).toHaveURL(/\/home$/);
    expect(new URL(page.url()).host).toBe(new URL(process.env.PORTAL_E2E_URL ?? '').host);
  });
}
