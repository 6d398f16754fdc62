import type { Locator, Page } from '@playwright/test';

import { admin } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

// Issue 19 point 12: forms say what is wrong where it is wrong.

const desktop = { width: 1366, height: 900 };
const phone = { width: 360, height: 740 };

/** Whether an element's text is cut off (an ellipsis or a clipped input value). */
const clipped = (element: Locator) => element.evaluate((node) => node.scrollWidth > node.clientWidth);

async function openNewTest(page: Page) {
  await page.goto('/admin/education/tests');
  await page.getByRole('button', { name: 'Создать тест' }).click();
  return page.getByRole('dialog', { name: 'Новый тест' });
}

test('«Новый тест» marks the fields the spec’s two messages are about and focuses the first wrong one', async ({
  page,
}) => {
  await page.setViewportSize(desktop);
  await signIn(page, admin);
  const dialog = await openNewTest(page);
  const title = dialog.getByRole('textbox', { name: 'Название' });
  const points = dialog.getByRole('textbox', { name: 'Баллов для прохождения' });
  const drawn = dialog.getByRole('textbox', { name: 'Вопросов после перемешивания' });

  // Nothing typed: the title is the first wrong field.
  await dialog.getByRole('button', { name: 'Создать' }).click();
  await expect(title).toBeFocused();
  await expect(title).toHaveAttribute('aria-invalid', 'true');
  await expect(title).toHaveAccessibleDescription(/Введите название теста/);

  // Title and description given: 10 points and 10 drawn of one question are the first wrong.
  await title.fill('Асептика');
  await dialog.getByRole('textbox', { name: 'Описание' }).fill('Обработка рук');
  await dialog.getByRole('button', { name: 'Создать' }).click();
  await expect(points).toBeFocused();
  await expect(points).toHaveAttribute('aria-invalid', 'true');
  await expect(points).toHaveAccessibleDescription(
    'Необходимое количество очков превышает количество вопросов в тесте',
  );
  await expect(drawn).toHaveAttribute('aria-invalid', 'true');
  await expect(drawn).toHaveAccessibleDescription(
    'Количество вопросов после перемешивания не может превышать количество вопросов в тесте',
  );
  // The message is beside its field, not only in the summary below the questions.
  const pointsBox = await points.boundingBox();
  const message = dialog
    .getByText('Необходимое количество очков превышает количество вопросов в тесте')
    .first();
  const messageBox = await message.boundingBox();
  if (pointsBox === null || messageBox === null) throw new Error('the field or its message is not laid out');
  expect(messageBox.y - (pointsBox.y + pointsBox.height)).toBeLessThan(40);
  await expect(dialog.getByRole('textbox', { name: 'Количество попыток' })).not.toHaveAttribute(
    'aria-invalid',
    'true',
  );
});

for (const [size, viewport] of [
  ['desktop', desktop],
  ['phone', phone],
] as const) {
  test(`a title over the server's 300 characters is stopped in the form, with a counter (${size})`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    await signIn(page, admin);
    await page.goto('/admin/education/courses');
    await page.getByRole('button', { name: 'Создать курс' }).click();
    const dialog = page.getByRole('dialog', { name: 'Новый курс' });
    const title = dialog.getByRole('textbox', { name: 'Название' });
    await expect(dialog.getByText('0 / 300', { exact: true })).toBeVisible();
    await title.fill('К'.repeat(12));
    await expect(dialog.getByText('12 / 300', { exact: true })).toBeVisible();
    await expect(title).not.toHaveAttribute('aria-invalid', 'true');

    await title.fill('К'.repeat(301));
    await dialog.getByRole('textbox', { name: 'Описание' }).fill('Описание курса');
    await dialog.getByLabel('Срок прохождения').fill('2099-01-01');
    const counter = dialog.getByText('301 / 300', { exact: true });
    await expect(counter).toBeVisible();
    await expect(title).toHaveAttribute('aria-invalid', 'true');
    await expect(title).toHaveAccessibleDescription(/Не длиннее 300 символов/);

    const calls: string[] = [];
    page.on('request', (request) => {
      if (/CreateCourse|\/courses/i.test(request.url()) && request.method() === 'POST')
        calls.push(request.url());
    });
    await dialog.getByRole('button', { name: 'Создать' }).click();
    await expect(title).toBeFocused();
    await expect(dialog).toBeVisible();
    await expect(page.getByText('Ошибка при создании курса')).toHaveCount(0);
    expect(calls).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      viewport.width,
    );

    // At the limit it is accepted by the form (the counter is no longer an error).
    await title.fill('К'.repeat(300));
    await expect(dialog.getByText('300 / 300', { exact: true })).toBeVisible();
    await expect(title).not.toHaveAttribute('aria-invalid', 'true');
  });
}

test('the labels of «Новый тест» are not cut off at 1366 px, filled or empty', async ({ page }) => {
  await page.setViewportSize(desktop);
  await signIn(page, admin);
  const dialog = await openNewTest(page);
  const labels = dialog.locator('label');
  await expect(labels.filter({ hasText: 'Баллов для прохождения' })).toBeVisible();
  const check = async () => {
    for (const label of await labels.all()) {
      if (!(await label.isVisible())) continue;
      expect(await clipped(label), await label.innerText()).toBe(false);
    }
  };
  await check();
  for (const name of ['Баллов для прохождения', 'Вопросов после перемешивания', 'Количество попыток']) {
    await dialog.getByRole('textbox', { name }).fill('');
  }
  await dialog.getByRole('textbox', { name: 'Название' }).focus();
  await check();
});

for (const [size, viewport] of [
  ['desktop', desktop],
  ['phone', phone],
] as const) {
  test(`statistics date fields show a whole date; a reversed period is a toast, not an error page (${size})`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    await signIn(page, admin);
    await page.goto('/admin/statistics');
    const found = page.getByRole('status').filter({ hasText: 'Найдено результатов' });
    await expect(found).toHaveText(/Найдено результатов: [1-9]/);
    const from = page.getByLabel('С даты');
    const to = page.getByLabel('По дату');
    // A period long before any result the demo writes, so the test reads the same any day.
    await from.fill('2001-12-01');
    await expect(found).toBeVisible();
    for (const input of [from, to]) {
      expect(await clipped(input)).toBe(false);
      expect((await input.boundingBox())?.width ?? 0).toBeGreaterThanOrEqual(140);
    }

    await to.fill('2001-01-01');
    await expect(page.getByText('Начальная дата периода позже конечной')).toBeVisible();
    await expect(page.getByText('Произошла ошибка при загрузке данных')).toHaveCount(0);
    await expect(found).toBeVisible();
    await expect(to).toHaveValue('2001-01-01');

    // Put right, the period filters again.
    await to.fill('2001-12-31');
    await expect(found).toHaveText('Найдено результатов: 0');
  });
}
