import type { Page, Route } from '@playwright/test';

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

test('two tabs whose access tokens expired renew at once and both stay signed in', async ({
  page,
  context,
}) => {
  const heading = (tab: Page) => tab.getByRole('heading', { name: 'Смирнова Ольга Викторовна' });
  await signIn(page, nurse);
  const second = await context.newPage();
  await second.goto('/cabinet');
  await expect(heading(second)).toBeVisible();
  // The tabs share localStorage: one spoiled token is both tabs' expired one.
  const spoiled = await spoilAccessToken(page);

  // Calls made with the expired token are held until both tabs have made one, then let go
  // together: both tabs learn at the same moment that they must renew, so their renewals
  // overlap for certain rather than by luck.
  const held: Route[] = [];
  const tabsHeld = new Set<Page>();
  // Every call made with it, grpc-web and REST alike (the bell asks over REST).
  await context.route('**', async (route) => {
    if (route.request().headers()['authorization'] !== `Bearer ${spoiled}` || tabsHeld.size === 2) {
      await route.continue();
      return;
    }
    held.push(route);
    tabsHeld.add(route.request().frame().page());
    if (tabsHeld.size === 2) await Promise.all(held.map((call) => call.continue()));
  });

  await Promise.all([page.goto('/cabinet'), second.goto('/cabinet')]);

  for (const tab of [page, second]) {
    await expect(heading(tab)).toBeVisible();
    await expect(tab).toHaveURL(/\/cabinet$/);
  }
  expect(tabsHeld.size).toBe(2);
  const renewed = await page.evaluate(() => localStorage.getItem('token'));
  expect(renewed).not.toBe(spoiled);
  expect(renewed).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

  // The session was not taken for stolen: it renews again, in either tab.
  await context.unrouteAll();
  await spoilAccessToken(second);
  await second.reload();
  await expect(heading(second)).toBeVisible();
  await page.reload();
  await expect(heading(page)).toBeVisible();
  await expect(page.getByText('Сессия истекла. Пожалуйста, войдите снова.')).toHaveCount(0);
});
