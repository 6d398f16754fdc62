// The rough edges of issue 10's walkthrough, each as a person meets it.
import type { Locator, Page } from '@playwright/test';

import { admin, nurse } from '../support/accounts';
import { signIn, signOut } from './session';
import { expect, test } from './test';

const phone = { width: 390, height: 844 };

/** Opens a user's page from the users list, as an admin finds it. */
async function openUser(page: Page, fullName: string) {
  await page.goto('/admin/users-management/admin-users');
  await page.getByRole('link', { name: new RegExp(fullName) }).click();
  await expect(page.getByRole('heading', { name: fullName })).toBeVisible();
}

/** Whether a chip's label shows all of its text (no "…"). */
const showsWholeLabel = (chip: Locator) =>
  chip.locator('.MuiChip-label').evaluate((label) => label.scrollWidth <= label.clientWidth);

test('a signed-in person who opens /login goes home', async ({ page }) => {
  await signIn(page, nurse);
  await page.goto('/login');
  await expect(page).toHaveURL(/\/home$/);
  await expect(page.getByRole('link', { name: 'Обучение Курсы, статьи и тесты' })).toBeVisible();
});

test('the no-access page keeps a signed-in person in the portal and leads home', async ({
  page,
  saveScreenshot,
}) => {
  await signIn(page, nurse);
  await page.goto('/admin');
  await expect(page).toHaveURL(/\/not-allowed$/);
  await expect(page.getByRole('heading', { name: 'У вас нет доступа к данному ресурсу' })).toBeVisible();
  await expect(page.getByRole('banner')).toContainText('Смирнова Ольга Викторовна');
  await expect(page.getByRole('navigation', { name: 'Навигация' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'На страницу авторизации' })).toHaveCount(0);
  await saveScreenshot('no-access-signed-in');

  await page.getByRole('link', { name: 'На главную' }).click();
  await expect(page).toHaveURL(/\/home$/);
});

test('a click beside a create dialog keeps what was typed into it', async ({ page }) => {
  await signIn(page, admin);
  await page.goto('/admin/users-management/admin-users');
  await page.getByRole('button', { name: 'Создать пользователя' }).click();
  const dialog = page.getByRole('dialog', { name: 'Новый пользователь' });
  await dialog.getByLabel('Фамилия').fill('Кравченко');

  await page.mouse.click(5, 400);
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel('Фамилия')).toHaveValue('Кравченко');

  await dialog.getByRole('button', { name: 'Закрыть' }).click();
  await expect(dialog).toBeHidden();
});

test('a full name reads surname, name, patronymic in the header, the cabinet and the lists', async ({
  page,
}) => {
  await signIn(page, nurse);
  await expect(page.getByRole('banner')).toContainText('Смирнова Ольга Викторовна');
  await page.goto('/cabinet');
  await expect(page.getByRole('heading', { name: 'Смирнова Ольга Викторовна' })).toBeVisible();

  await signOut(page);
  await signIn(page, admin);
  await openUser(page, 'Смирнова Ольга Викторовна');
  // The breadcrumb keeps the spec's order: name, surname, patronymic.
  await expect(
    page.getByRole('navigation', { name: 'Навигационная цепочка' }).getByText('Ольга Смирнова Викторовна'),
  ).toBeVisible();
});

test('the users list marks the users who cannot sign in', async ({ page }) => {
  await signIn(page, admin);
  await page.goto('/admin/users-management/admin-users');
  await expect(page.getByRole('link', { name: /Орлов Сергей Петрович/ })).toContainText('Заблокирован');
  await expect(page.getByRole('link', { name: /Смирнова Ольга Викторовна/ })).not.toContainText(
    'Заблокирован',
  );
});

test('on a phone the admin tabs have scroll buttons and no label starts cut off', async ({
  page,
  saveScreenshot,
}) => {
  await page.setViewportSize(phone);
  await signIn(page, admin);
  await page.goto('/admin/users-management/admin-users');
  const sections = page.getByRole('tablist', { name: 'Разделы админ-панели' });
  await expect(sections.getByRole('tab', { name: 'Управление пользователями' })).toBeVisible();
  const strip = sections.locator('xpath=ancestor::div[contains(@class, "MuiTabs-root")][1]');
  await expect(strip.locator('.MuiTabs-scrollButtons').first()).toBeVisible();
  // Let the strip settle where it scrolled the chosen tab to.
  await page.waitForTimeout(500);

  for (const tablist of [
    sections,
    page.getByRole('tablist', { name: 'Разделы управления пользователями' }),
  ]) {
    const cut = await tablist.evaluate((list) => {
      const scroller = list.parentElement;
      if (!scroller) return ['no scroller'];
      const view = scroller.getBoundingClientRect();
      return Array.from(list.querySelectorAll('[role="tab"]'))
        .filter((tab) => {
          const box = tab.getBoundingClientRect();
          return box.right > view.left + 1 && box.left < view.left - 1;
        })
        .map((tab) => tab.textContent);
    });
    expect(cut).toEqual([]);
  }
  await saveScreenshot('admin-tabs-phone', { fullPage: false });
});

test('long position and department names wrap instead of being cut', async ({ page, saveScreenshot }) => {
  await page.setViewportSize({ width: 320, height: 800 });
  await signIn(page, admin);
  await openUser(page, 'Лебедева Марина Сергеевна');
  const position = page.getByRole('button', { name: 'Старшая медицинская сестра' });
  await expect(position).toBeVisible();
  expect(await showsWholeLabel(position)).toBe(true);
  await saveScreenshot('user-positions-phone');
});

test("the spec's literal oddities stay: the unknown section and 'Создать тест' on the rights", async ({
  page,
}) => {
  await signIn(page, admin);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Неизвестный раздел');
  await page.goto('/admin/users-management/admin-roles');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Неизвестный раздел');
  await expect(page.getByRole('link', { name: 'Создать тест' }).first()).toBeVisible();
  await page.goto('/courses');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Раздел 3. Обучение и развитие');
});
