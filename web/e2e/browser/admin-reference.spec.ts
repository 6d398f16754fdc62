import type { Page } from '@playwright/test';

import { admin, nurse } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

/** Fills a reference dialog's text fields by label, creates, and waits for it to close (3 s). */
async function add(
  page: Page,
  dialogName: string,
  fields: Record<string, string>,
  choose?: [string, string],
) {
  await page.getByRole('button', { name: dialogName }).click();
  const dialog = page.getByRole('dialog', { name: dialogName });
  for (const [label, value] of Object.entries(fields)) {
    await dialog.getByRole('textbox', { name: label }).fill(value);
  }
  if (choose !== undefined) {
    const [label, option] = choose;
    await dialog.getByRole('combobox', { name: label }).click();
    await page.getByRole('option', { name: option }).click();
  }
  await dialog.getByRole('button', { name: 'Создать' }).click();
  await expect(page.getByText('Запись добавлена в справочник').last()).toBeVisible();
  await expect(dialog).toBeHidden();
}

test('an admin adds a country, a manufacturer, an equipment type and a common document', async ({
  page,
  saveScreenshot,
}) => {
  // Four entries, each dialog closing 3 s after its success (spec §9).
  test.slow();
  await signIn(page, admin);
  await page.goto('/admin/equipments');
  await page.getByRole('tab', { name: 'Справочники' }).click();
  await expect(page).toHaveURL(/\/admin\/equipments\/reference-data$/);
  await expect(page.getByRole('heading', { name: 'Справочники', level: 2 })).toBeVisible();

  // An empty submit is refused before anything is sent, with the field's own message.
  await page.getByRole('button', { name: 'Новая страна' }).click();
  const dialog = page.getByRole('dialog', { name: 'Новая страна' });
  await dialog.getByRole('button', { name: 'Создать' }).click();
  await expect(dialog.getByText('Введите название страны')).toBeVisible();
  await saveScreenshot('admin-reference-required', { fullPage: false });
  await dialog.getByRole('button', { name: 'Закрыть' }).click();

  const tag = Date.now().toString(36);
  const country = `Страна ${tag}`;
  const maker = `Производитель ${tag}`;
  const kind = `Тип ${tag}`;
  const document = `Приказ ${tag}`;
  await add(page, 'Новая страна', { 'Название страны': country });
  await add(page, 'Новый производитель', { 'Название производителя': maker }, ['Страна', country]);
  await add(page, 'Новый тип оборудования', { 'Название типа оборудования': kind });
  await add(page, 'Новый общий документ', {
    'Название документа': document,
    Описание: 'Порядок эксплуатации медицинских изделий',
    'Ссылка на документ': 'https://portal.example/orders/1.pdf',
  });

  await expect(page.getByRole('region', { name: 'Страны' }).getByText(country)).toBeVisible();
  const makers = page.getByRole('region', { name: 'Производители' });
  await expect(makers.getByRole('listitem').filter({ hasText: maker })).toContainText(country);
  await expect(page.getByRole('region', { name: 'Типы оборудования' }).getByText(kind)).toBeVisible();
  const link = page
    .getByRole('region', { name: 'Общие документы' })
    .getByRole('link', { name: new RegExp(document) });
  await expect(link).toHaveAttribute('href', 'https://portal.example/orders/1.pdf');
  await expect(link).toHaveAttribute('target', '_blank');

  // The same name again, told apart only by case: the server's reason, in Russian.
  await page.getByRole('button', { name: 'Новая страна' }).click();
  await dialog.getByRole('textbox', { name: 'Название страны' }).fill(country.toUpperCase());
  await dialog.getByRole('button', { name: 'Создать' }).click();
  await expect(
    page.getByText(`Не удалось добавить запись: «${country.toUpperCase()}» уже есть в справочнике`),
  ).toBeVisible();
  await dialog.getByRole('button', { name: 'Закрыть' }).click();
  await expect(dialog).toBeHidden();
  // Tall enough for all four lists at once: a full-page shot would repeat the sticky header.
  await page.setViewportSize({ width: 1280, height: 1100 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await saveScreenshot('admin-reference', { fullPage: false });
});

test('a learner cannot reach the reference lists', async ({ page }) => {
  await signIn(page, nurse);
  await page.goto('/admin/equipments/reference-data');
  await expect(page).toHaveURL(/\/not-allowed$/);
});
