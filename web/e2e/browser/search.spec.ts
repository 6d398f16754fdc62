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
  // The model's page opens on its instruction (issue 37): typed before that, Enter's page would
  // be replaced.
  await expect(page).toHaveURL(/\/departments\/environments\/\d+\/environment\/\d+\/short-instruction$/);
  await expect(page.getByRole('tab', { name: 'Краткая инструкция по эксплуатации' })).toHaveAttribute(
    'aria-selected',
    'true',
  );

  await box.fill('монитор');
  await box.press('Enter');
  await expect(page).toHaveURL(/\/search\?q=/);
  await expect(page.getByRole('heading', { name: 'Поиск: «монитор»' })).toBeVisible();
  await expect(
    page.getByRole('main').getByRole('listitem', { name: 'Оборудование и инструкции' }),
  ).toBeVisible();
});

// Issue 25: a phone's header has no room for the box; its search button opens the search page,
// whose own box is ready to type in, with the results grouped as on a desktop.
test('on a phone the header’s search button opens the page, whose box finds the defibrillator', async ({
  page,
  saveScreenshot,
}) => {
  await page.setViewportSize({ width: 360, height: 760 });
  await signIn(page, nurse);
  const box = page.getByRole('searchbox', { name: 'Поиск по порталу' });
  await expect(box).toHaveCount(0);
  const button = page.getByRole('banner').getByRole('link', { name: 'Открыть поиск' });
  await expect(button).toBeInViewport({ ratio: 1 });
  await saveScreenshot('search-phone-header', { fullPage: false });

  await button.click();
  await expect(page).toHaveURL(/\/search$/);
  await expect(box).toBeFocused();
  await page.keyboard.type('дефибрилляторы');
  await expect(page).toHaveURL(/\/search\?q=/);
  await expect(page.getByRole('heading', { name: 'Поиск: «дефибрилляторы»' })).toBeVisible();
  const hit = page
    .getByRole('main')
    .getByRole('listitem', { name: 'Оборудование и инструкции' })
    .getByRole('link', { name: /HeartStart/ });
  await expect(hit).toBeVisible();
  await saveScreenshot('search-phone-page', { fullPage: false });
  await hit.click();
  await expect(page).toHaveURL(/\/departments\/environments\/\d+\/environment\/\d+\/short-instruction$/);
});

// Issue 37: a unit found by its inventory number opens its model's instruction, at desktop
// width and on a phone.
for (const { name, viewport } of [
  { name: 'desktop', viewport: { width: 1366, height: 900 } },
  { name: 'phone', viewport: { width: 360, height: 760 } },
]) {
  test(`a unit found by its inventory number opens its model's instruction (${name})`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await signIn(page, nurse);
    await page.goto(`/search?q=${encodeURIComponent('ИН-000101')}`);
    const hit = page
      .getByRole('main')
      .getByRole('listitem', { name: 'Единицы оборудования' })
      .getByRole('link', { name: /ИН-000101/ });
    await hit.click();
    await expect(page).toHaveURL(/\/departments\/environments\/1\/environment\/1\/short-instruction$/);
    await expect(page.getByRole('heading', { name: monitor, level: 2 })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Открыть инструкцию' })).toBeVisible();
  });
}
