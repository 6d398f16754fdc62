// Issue 37 point 16: a deploy replaces the route files an open tab knows by name. The tab
// reloads once by itself to the new build; when that does not help, a Russian page asks the
// person to reload. react-router's English developer page never shows.
import type { Page } from '@playwright/test';

import { nurse } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

const desktop = { width: 1366, height: 900 };
const phone = { width: 360, height: 740 };

/** The personal cabinet's route file, as the build named it (`cabinet-page-<hash>.js`). */
const cabinetFile = /\/assets\/cabinet-page-[\w-]+\.js$/;

/**
 * From now on the cabinet's file is gone, as after a deploy (`times`: for that many requests):
 * the portal answers for it as it answers for any file it does not have. That answer is not
 * kept by the browser here: after a real deploy the old name is never asked for again, while
 * this test stands the answer in for the name the build still uses.
 */
async function removeCabinetFile(page: Page, times?: number) {
  await page.route(
    cabinetFile,
    async (route) => {
      const missing = new URL(route.request().url());
      missing.pathname = '/assets/cabinet-page-replaced-by-a-deploy.js';
      const answer = await route.fetch({ url: missing.toString() });
      await route.fulfill({
        status: answer.status(),
        headers: { ...answer.headers(), 'cache-control': 'no-store' },
        body: await answer.body(),
      });
    },
    { times },
  );
}

/** Counts the page's loads from now on (the first visit and every reload). */
function countLoads(page: Page) {
  const loads = { count: 0 };
  page.on('load', () => (loads.count += 1));
  return loads;
}

const developerPage = /Unexpected Application Error|Hey developer|Failed to fetch/;

for (const [name, viewport] of Object.entries({ desktop, phone })) {
  test(`${name}: a page whose file a deploy replaced opens after one reload by itself`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await signIn(page, nurse);
    await removeCabinetFile(page, 1);
    const loads = countLoads(page);

    await page.getByRole('link', { name: 'Личный кабинет' }).click();

    await expect(page).toHaveURL(/\/cabinet$/);
    await expect(page.getByRole('heading', { name: 'Смирнова Ольга Викторовна' })).toBeVisible();
    expect(loads.count).toBe(1);
    await expect(page.locator('body')).not.toContainText(developerPage);
  });

  test(`${name}: when the reload does not help, a Russian page asks to reload`, async ({
    page,
    saveScreenshot,
  }) => {
    await page.setViewportSize(viewport);
    await signIn(page, nurse);
    await removeCabinetFile(page);
    const loads = countLoads(page);

    await page.getByRole('link', { name: 'Личный кабинет' }).click();

    await expect(page.getByRole('heading', { name: 'Обновите страницу' })).toBeVisible();
    await expect(page.getByText(/Портал обновился/)).toBeVisible();
    await expect(page.locator('body')).not.toContainText(developerPage);
    // One reload by itself, no more: the page waits for the person.
    await page.waitForTimeout(1_000);
    expect(loads.count).toBe(1);
    await saveScreenshot(`deploy-reload-page-${name}`, { fullPage: false });

    // The person reloads once the new build is in place.
    await page.unroute(cabinetFile);
    await page.getByRole('button', { name: 'Обновить страницу' }).click();
    await expect(page.getByRole('heading', { name: 'Смирнова Ольга Викторовна' })).toBeVisible();
  });
}
