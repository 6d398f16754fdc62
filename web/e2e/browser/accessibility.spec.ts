// Issue 19 point 17: axe-core, the checker people trust, finds no serious or critical
// violation on any page, at desktop width and on a phone. One signed-in page per person
// walks its pages (no sign-in per page), so the whole walk takes about a minute.
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';

import { admin, nurse, type Account } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

// Each walk reads 3 to 20 pages; on a loaded machine a walk has taken over 90 s.
test.describe.configure({ mode: 'parallel', timeout: 240_000 });

const desktop = { width: 1280, height: 800 };
const phone = { width: 360, height: 760 };

// Demo data: the ICU (1) and its monitor (1), course 1 and its articles, assigned to the nurse.
const model = '/departments/environments/1/environment/1';
const modelSections = ['documentation', 'short-instruction', 'maintenance-logbook', 'journal'].map(
  (section) => `${model}/${section}`,
);

const publicPages = ['/login', '/short-instruction/1', '/no-such-page'];
const staffPages = [
  '/home',
  '/cabinet',
  '/my-tests',
  '/my-statistics',
  '/courses',
  '/courses/1',
  'first article of course 1',
  'first test of that article',
  '/departments',
  '/departments/environments/1',
  ...modelSections,
  '/search?q=дефибрилляторы',
  '/admin',
];
const adminPages = [
  '/admin/education/courses',
  '/admin/education/courses/1',
  '/admin/education/articles',
  '/admin/education/articles/1',
  '/admin/education/tests',
  '/admin/education/tests/1',
  '/admin/equipments/equipment-models',
  '/admin/equipments/equipment-models/1',
  '/admin/equipments/reference-data',
  '/admin/users-management/admin-departments',
  '/admin/users-management/admin-departments/1',
  '/admin/users-management/admin-users',
  '/admin/users-management/admin-users/2',
  '/admin/users-management/admin-roles',
  '/admin/users-management/admin-roles/1',
  '/admin/statistics',
  '/admin/audit',
  '/departments/maintenance-due',
  '/departments/environments/1/labels',
  ...modelSections,
];

/** Opens a page by its path, or by a link of the page before it (ids the demo decides). */
async function open(page: Page, where: string) {
  if (where === 'first article of course 1') {
    await page.goto('/courses/1');
    await page.locator('main a[href*="/article/"]').first().click();
  } else if (where === 'first test of that article') {
    await page.getByRole('link', { name: 'Пройти тест по теме' }).first().click();
  } else {
    await page.goto(where);
  }
  // Loaded: the page's spinners have gone (axe reads the page as it stands).
  await expect(page.locator('main, body').first()).toBeVisible();
  await expect(page.locator('[role="status"][aria-label="Загрузка..."]')).toHaveCount(0, { timeout: 15_000 });
}

/** Each serious or critical violation on each page, as `page: rule (element, …)`. */
async function violations(page: Page, pages: string[]) {
  const found: string[] = [];
  for (const where of pages) {
    await open(page, where);
    const { violations } = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .analyze();
    for (const violation of violations) {
      if (violation.impact !== 'serious' && violation.impact !== 'critical') continue;
      const targets = violation.nodes.map((node) => node.target.join(' ')).slice(0, 3);
      found.push(`${where}: ${violation.id} (${targets.join(', ')})`);
    }
  }
  return found;
}

const walks: { who: string; account?: Account; pages: string[]; sizes: (typeof desktop)[] }[] = [
  { who: 'anyone', pages: publicPages, sizes: [desktop, phone] },
  { who: 'staff', account: nurse, pages: staffPages, sizes: [desktop, phone] },
  // Administration is done at a desk; its pages are checked at desktop width.
  { who: 'an admin', account: admin, pages: adminPages, sizes: [desktop] },
];

for (const { who, account, pages, sizes } of walks) {
  for (const size of sizes) {
    test(`axe finds nothing serious on the pages of ${who} at ${size.width} px`, async ({ page }) => {
      await page.setViewportSize(size);
      if (account) await signIn(page, account);
      expect(await violations(page, pages)).toEqual([]);
    });
  }
}
