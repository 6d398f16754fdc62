import type { Page } from '@playwright/test';

import type { Account } from '../support/accounts';
import { expect } from './test';

// The auth service allows 5 failed sign-ins per 15 minutes from one address, and every
// browser test comes from 127.0.0.1: only successful sign-ins belong here.

/** Signs in through the login page and waits for home (1.5 s after the success alert). */
export async function signIn(page: Page, { login, password }: Account) {
  await page.goto('/login');
  await page.getByLabel('Введите логин:').fill(login);
  await page.getByLabel('Введите пароль:').fill(password);
  await page.getByRole('button', { name: 'Войти' }).click();
  await expect(page).toHaveURL(/\/home$/);
}

export async function signOut(page: Page) {
  await page.getByRole('button', { name: 'Выход' }).click();
  await expect(page).toHaveURL(/\/login$/);
}
