import { admin } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

test('an admin edits an article twice, compares two versions word by word and restores the first edit', async ({
  page,
  saveScreenshot,
}) => {
  const title = `Гигиена рук ${Date.now().toString(36)}`;
  await page.setViewportSize({ width: 1366, height: 900 });
  await signIn(page, admin);
  await page.goto('/admin/education/articles');
  await page.getByRole('button', { name: 'Создать статью' }).click();
  const dialog = page.getByRole('dialog', { name: 'Новая статья' });
  await dialog.getByLabel('Название').fill(title);
  await dialog.getByLabel('Описание').fill('Обработка рук перед процедурой');
  await dialog.getByLabel('Срок прохождения').fill('2099-01-31');
  await dialog.getByRole('button', { name: 'Создать' }).click();
  await expect(dialog).toBeHidden({ timeout: 5000 });
  await page.getByRole('link', { name: new RegExp(title) }).click();

  const editor = page.getByRole('textbox', { name: 'Содержание статьи' });
  const history = page.getByRole('list', { name: 'История изменений' }).getByRole('listitem');
  const saveContent = async (text: string, versions: number) => {
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(text);
    await page.getByRole('button', { name: 'Сохранить' }).click();
    await expect(page.getByText('Обновление информации по статье прошло успешно').last()).toBeVisible();
    await expect(history).toHaveCount(versions);
  };
  await saveContent('Мойте руки водой перед каждой процедурой.', 2);
  await saveContent('Мойте руки с мылом перед каждой процедурой.', 3);

  // Who and when, the newest first: the second edit is the current version.
  await expect(history.first()).toContainText('текущая');
  await expect(history.first()).toContainText(/\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}/);
  await history.nth(0).getByRole('checkbox').check();
  await history.nth(1).getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Сравнить' }).click();
  const diff = page.getByTestId('revision-diff');
  await expect(diff.locator('del')).toHaveText(['водой']);
  await expect(diff.locator('ins')).toHaveText(['с мылом']);
  await expect(diff).toContainText('Мойте руки водойс мылом перед каждой процедурой.');
  // Stored HTML is shown as text, never as markup.
  await expect(diff.locator('p')).toHaveCount(0);
  await diff.scrollIntoViewIfNeeded();
  await saveScreenshot('revisions-diff', { fullPage: false });

  // Restoring the first edit asks first, then is itself a new version, which says which
  // version it brought back (issue 37).
  const firstEdit = /\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}/.exec((await history.nth(1).textContent()) ?? '')?.[0];
  expect(firstEdit).toBeDefined();
  await history.nth(1).getByRole('button', { name: 'Восстановить' }).click();
  const confirm = page.getByRole('dialog', { name: 'Восстановить версию?' });
  await expect(confirm).toContainText('Текущее содержимое останется в истории.');
  await confirm.getByRole('button', { name: 'Восстановить' }).click();
  await expect(page.getByText('Версия восстановлена')).toBeVisible();
  await expect(history).toHaveCount(4);
  await expect(history.first()).toContainText(`восстановлено из версии от ${firstEdit ?? ''}`);
  await expect(history.nth(1)).not.toContainText('восстановлено');
  await expect(editor).toContainText('Мойте руки водой перед каждой процедурой.');
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Содержание статьи' })).toContainText('руки водой');

  // On a phone too.
  await page.setViewportSize({ width: 360, height: 760 });
  await history.first().scrollIntoViewIfNeeded();
  await expect(history.first()).toContainText(`восстановлено из версии от ${firstEdit ?? ''}`);
  await expect(history.first()).toBeInViewport();
  await saveScreenshot('revisions-restored-phone', { fullPage: false });
});
