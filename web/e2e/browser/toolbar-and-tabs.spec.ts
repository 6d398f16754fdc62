// Issue 19 point 16: the rich-text editors' toolbars speak Russian, and a phone shows every
// section of an equipment model at once.
import type { Locator } from '@playwright/test';

import { admin, engineer, nurse } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

// The demo's monitor in the demo ICU (services/wiki/src/demo.rs, auth's demo departments).
const monitorPage = '/departments/environments/1/environment/1';

/** Each control of a Quill toolbar whose name or tooltip is not Russian, as `name | title`. */
async function unnamed(toolbar: Locator) {
  await expect(toolbar).toBeVisible();
  return toolbar.evaluate((element) =>
    Array.from(element.querySelectorAll('button, [role="button"]'))
      .map((control) => `${control.getAttribute('aria-label')} | ${control.getAttribute('title')}`)
      .filter((names) => !/^[А-ЯЁ][а-яё0-9 ]+ \| [А-ЯЁ][а-яё0-9 ]+$/.test(names)),
  );
}

test("the article editor's toolbar names every control in Russian", async ({ page }) => {
  await signIn(page, admin);
  await page.goto('/admin/education/articles/1');
  const toolbar = page.locator('.ql-toolbar');
  expect(await unnamed(toolbar)).toEqual([]);
  await expect(toolbar.getByRole('button', { name: 'По центру' })).toHaveAttribute('title', 'По центру');
  await expect(toolbar.getByRole('button', { name: 'Полужирный' })).toBeVisible();
});

test("the instruction editor's toolbar names every control in Russian", async ({ page }) => {
  await signIn(page, engineer);
  await page.goto(`${monitorPage}/short-instruction`);
  await page.getByRole('button', { name: 'Открыть инструкцию' }).click();
  const dialog = page.getByRole('dialog', { name: /Редактирование инструкции/ });
  expect(await unnamed(dialog.locator('.ql-toolbar'))).toEqual([]);
});

test("on a phone a model page shows all four of its sections' tabs at once", async ({
  page,
  saveScreenshot,
}) => {
  await page.setViewportSize({ width: 360, height: 760 });
  await signIn(page, nurse);
  await page.goto(`${monitorPage}/documentation`);
  const tabs = page.getByRole('tablist', { name: 'Разделы модели оборудования' }).getByRole('tab');
  await expect(tabs).toHaveCount(4);
  for (const tab of await tabs.all()) await expect(tab).toBeInViewport({ ratio: 1 });
  await expect(tabs.first()).toHaveAttribute('aria-selected', 'true');
  await saveScreenshot('model-tabs-phone', { fullPage: false });
});
