// Issue 25 point 1: the header's search box finds what the nurse may open, by any form of a
// word, grouped by kind; a hit opens its page; Enter opens the /search page.
import { nurse } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

// The demo ICU's monitor (services/wiki/src/demo.rs), in the nurse's department.
const monitor = 'Монитор пациента BeneView T5';

test('a nurse finds the monitor by a plural, sees it grouped, and opens it', async ({ page }) => {
  await signIn(page, nurse);
  const box = page.getByRole('searchbox', { name: 'Поиск по порталу' });
  await box.fill('мониторы');
  const group = page.getByRole('listitem', { name: 'Оборудование и инструкции' });
  const hit = group.getByRole('link', { name: new RegExp(monitor) });
  await expect(hit).toBeVisible();
  // The matched word is marked, as text (never HTML from the server).
  await expect(hit.locator('mark').first()).toHaveText(/Монитор/i);
  await hit.click();
  await expect(page).toHaveURL(/\/departments\/environments\/\d+\/environment\/\d+/);

  await box.fill('монитор');
  await box.press('Enter');
  await expect(page).toHaveURL(/\/search\?q=/);
  await expect(page.getByRole('heading', { name: 'Поиск: «монитор»' })).toBeVisible();
  await expect(
    page.getByRole('main').getByRole('listitem', { name: 'Оборудование и инструкции' }),
  ).toBeVisible();
});
