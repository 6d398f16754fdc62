import type { Page } from '@playwright/test';

import { admin, engineer, nurse } from '../support/accounts';
import { assignFreshTest } from '../support/education';
import { signIn, signOut } from './session';
import { expect, test } from './test';

// Issue 19's form points: typed work is not lost, and forms say what is wrong where it is.

test('a reload during a test keeps the chosen answers of that attempt, until it is completed', async ({
  page,
  request,
}) => {
  const fresh = await assignFreshTest(request);
  await signIn(page, nurse);
  await page.goto('/my-tests');
  await page
    .getByRole('article', { name: fresh.test })
    .getByRole('link', { name: 'Перейти к тесту' })
    .click();
  await page.getByRole('button', { name: 'Начать тест' }).click();
  const groups = page.getByRole('radiogroup');
  await expect(groups).toHaveCount(2);
  await groups.first().getByRole('radio', { name: 'Верно', exact: true }).check();
  await expect(page.getByText('Отвечено на 1 из 2')).toBeVisible();

  // The reload keeps the attempt (no try spent, «Продолжить тест») and, now, its answer.
  await page.reload();
  await page.getByRole('button', { name: 'Продолжить тест' }).click();
  await expect(groups.first().getByRole('radio', { name: 'Верно', exact: true })).toBeChecked();
  await expect(groups.nth(1).getByRole('radio', { checked: true })).toHaveCount(0);
  await expect(page.getByText('Отвечено на 1 из 2')).toBeVisible();

  await groups.nth(1).getByRole('radio', { name: 'Верно', exact: true }).check();
  await page.getByRole('button', { name: 'Завершить тест' }).click();
  const result = page.getByRole('dialog', { name: 'Результаты теста' });
  await expect(result.getByText('Количество набранных очков: 2 из 2')).toBeVisible();
  await result.getByRole('button', { name: 'Закрыть' }).click();

  // The next try is a new attempt: nothing of the last one is chosen in it.
  await page.getByRole('button', { name: 'Начать тест' }).click();
  await expect(groups).toHaveCount(2);
  await expect(page.getByRole('radio', { checked: true })).toHaveCount(0);
  await groups.first().getByRole('radio', { name: 'Неверно', exact: true }).check();

  // Signing out leaves no one's answers behind in the tab.
  const drafts = () =>
    page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('portal.draft.')));
  expect(await drafts()).toHaveLength(1);
  await signOut(page);
  expect(await drafts()).toEqual([]);
});

const discard = (page: Page) => page.getByRole('dialog', { name: 'Закрыть без сохранения?' });

for (const [size, viewport] of [
  ['desktop', { width: 1366, height: 900 }],
  ['phone', { width: 360, height: 740 }],
] as const) {
  test(`Escape on a create dialog with typed input asks before throwing it away (${size})`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    await signIn(page, admin);
    await page.goto('/admin/education/tests');
    const create = page.getByRole('button', { name: 'Создать тест' });
    const dialog = page.getByRole('dialog', { name: 'Новый тест' });

    // Nothing typed: Escape closes at once.
    await create.click();
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(discard(page)).toHaveCount(0);

    await create.click();
    const title = dialog.getByRole('textbox', { name: 'Название' });
    await title.fill('Тест, который жалко потерять');
    await page.keyboard.press('Escape');
    await expect(discard(page)).toBeVisible();
    // Staying is the default: Escape again, or the first button, keeps the typed text.
    await page.keyboard.press('Escape');
    await expect(discard(page)).toBeHidden();
    await expect(title).toHaveValue('Тест, который жалко потерять');
    await dialog.getByRole('button', { name: 'Закрыть' }).click();
    await discard(page).getByRole('button', { name: 'Продолжить редактирование' }).click();
    await expect(title).toHaveValue('Тест, который жалко потерять');

    // Typed and erased again is nothing to lose.
    await title.fill('');
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();

    await create.click();
    await title.fill('Черновик');
    await page.keyboard.press('Escape');
    await discard(page).getByRole('button', { name: 'Закрыть без сохранения' }).click();
    await expect(dialog).toBeHidden();
    await create.click();
    await expect(title).toHaveValue('');
  });
}

test('the instruction editor asks before Escape or «X» drops an edited instruction', async ({ page }) => {
  await signIn(page, engineer);
  await page.goto('/departments');
  await page.getByRole('link', { name: /Отделение реанимации и интенсивной терапии/ }).click();
  await page.getByRole('link', { name: '+ Монитор пациента BeneView T5' }).click();
  await page.getByRole('tab', { name: 'Краткая инструкция по эксплуатации' }).click();
  const open = page.getByRole('button', { name: 'Открыть инструкцию' });
  const dialog = page.getByRole('dialog', { name: /Редактирование инструкции/ });

  // Opened and looked at only: it closes at once.
  await open.click();
  await expect(dialog.locator('.ql-editor')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  await open.click();
  const editor = dialog.locator('.ql-editor');
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(' Проверить тревоги перед сменой.');
  await page.keyboard.press('Escape');
  await discard(page).getByRole('button', { name: 'Продолжить редактирование' }).click();
  await expect(editor).toContainText('Проверить тревоги перед сменой.');
  await dialog.getByRole('button', { name: 'X' }).click();
  await expect(discard(page)).toBeVisible();
  await discard(page).getByRole('button', { name: 'Закрыть без сохранения' }).click();
  await expect(dialog).toBeHidden();
  await open.click();
  await expect(dialog.locator('.ql-editor')).not.toContainText('Проверить тревоги перед сменой.');
});

test('leaving the article editor with unsaved edits asks, in the portal and in the browser', async ({
  page,
}) => {
  await signIn(page, admin);
  await page.goto('/admin/education/articles');
  await page.locator('main a[href^="/admin/education/articles/"]').first().click();
  const editor = page.getByRole('textbox', { name: 'Содержание статьи' });
  await expect(editor).toBeVisible();
  const articleUrl = page.url();

  // Nothing edited: a link leaves at once.
  await page.getByRole('link', { name: 'Статьи', exact: true }).first().click();
  await expect(page).not.toHaveURL(articleUrl);
  await page.goBack();
  await expect(editor).toBeVisible();

  await editor.click();
  await page.keyboard.type('Дополнение к статье. ');
  await page.getByRole('link', { name: 'Статьи', exact: true }).first().click();
  await expect(discard(page)).toBeVisible();
  await discard(page).getByRole('button', { name: 'Продолжить редактирование' }).click();
  await expect(page).toHaveURL(articleUrl);
  await expect(editor).toContainText('Дополнение к статье.');

  // Closing the tab (or reloading) asks the browser's own question.
  const asked = page.waitForEvent('dialog');
  await page.close({ runBeforeUnload: true });
  const question = await asked;
  expect(question.type()).toBe('beforeunload');
  await question.accept();
});

for (const [size, viewport] of [
  ['desktop', { width: 1366, height: 900 }],
  ['phone', { width: 360, height: 740 }],
] as const) {
  test(`a document upload shows its progress in percent and can be cancelled, saving nothing (${size})`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    await signIn(page, engineer);
    await page.goto('/departments');
    await page.getByRole('link', { name: /Отделение реанимации и интенсивной терапии/ }).click();
    await page.getByRole('link', { name: '+ Монитор пациента BeneView T5' }).click();
    await expect(page).toHaveURL(/\/documentation$/);

    // A slow ward network: 256 KB/s up, so 2 MB take about 8 s.
    const network = await page.context().newCDPSession(page);
    await network.send('Network.enable');
    await network.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 256 * 1024,
    });

    const title = `Сервисное руководство ${Date.now().toString(36)}`;
    await page.getByRole('button', { name: 'Загрузить документ' }).click();
    const dialog = page.getByRole('dialog', { name: 'Загрузка документа' });
    await dialog.getByLabel('Введите название документа').fill(title);
    await dialog.locator('input[type=file]').setInputFiles({
      name: 'руководство.txt',
      mimeType: 'text/plain',
      buffer: Buffer.alloc(2 * 1024 * 1024, 'Руководство по обслуживанию. '),
    });
    await dialog.getByRole('button', { name: 'Загрузить', exact: true }).click();
    const bar = dialog.getByRole('progressbar', { name: /Загружено \d+ %/ });
    await expect(bar).toBeVisible();
    await expect(bar).toHaveAttribute('aria-valuenow', /^\d+$/);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      viewport.width,
    );
    await dialog.getByRole('button', { name: 'Отменить загрузку' }).click();
    await expect(dialog.getByText('Загрузка отменена: файл не сохранён.')).toBeVisible();
    await expect(bar).toBeHidden();
    // The form keeps what was chosen for another try.
    await expect(dialog.getByText('руководство.txt')).toBeVisible();

    await network.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await dialog.getByRole('button', { name: 'Закрыть' }).click();
    await page
      .getByRole('dialog', { name: 'Закрыть без сохранения?' })
      .getByRole('button', { name: 'Закрыть без сохранения' })
      .click();
    await page.reload();
    await expect(page.getByRole('link', { name: 'Руководство по эксплуатации', exact: true })).toBeVisible();
    await expect(page.getByRole('link', { name: title })).toHaveCount(0);
  });
}
