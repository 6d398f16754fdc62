import type { Page } from '@playwright/test';

import { nurse } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

/** Keeps the stored access token's claims but breaks its signature: the server refuses it. */
async function spoilAccessToken(page: Page): Promise<string> {
  return page.evaluate(() => {
    const token = localStorage.getItem('token') ?? '';
    const spoiled = `${token.slice(0, token.lastIndexOf('.'))}.c3BvaWxlZA`;
    localStorage.setItem('token', spoiled);
    return spoiled;
  });
}

test('a refused access token is renewed through the refresh cookie and the call repeated', async ({
  page,
}) => {
  await signIn(page, nurse);
  const spoiled = await spoilAccessToken(page);

  await page.goto('/cabinet');
  await expect(page.getByRole('heading', { name: 'Смирнова Ольга Викторовна' })).toBeVisible();
  const renewed = await page.evaluate(() => localStorage.getItem('token'));
  expect(renewed).not.toBe(spoiled);
  expect(renewed).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
});

test('without a usable refresh cookie the session ends and sign-in opens', async ({ page, context }) => {
  await signIn(page, nurse);
  await spoilAccessToken(page);
  await context.clearCookies();

  await page.goto('/cabinet');
  await expect(page.getByText('Сессия истекла. Пожалуйста, войдите снова.')).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
  expect(
    await page.evaluate(() => [localStorage.getItem('token'), localStorage.getItem('decodedToken')]),
  ).toEqual([null, null]);
});
