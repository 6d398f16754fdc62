import { readFile } from 'node:fs/promises';

import type { Page } from '@playwright/test';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';

import { engineer } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

// The demo equipment (services/wiki/src/demo.rs) in auth's demo departments.
const icu = 'Отделение реанимации и интенсивной терапии';
const monitor = 'Монитор пациента BeneView T5';

/** Signs in as the demo engineer and opens the patient monitor of the ICU; returns its id. */
async function openMonitor(page: Page): Promise<string> {
  await signIn(page, engineer);
  await page.goto('/departments');
  await page.getByRole('link', { name: new RegExp(icu) }).click();
  await expect(page.getByRole('heading', { name: 'Список оборудования' })).toBeVisible();
  await page.getByRole('link', { name: `+ ${monitor}` }).click();
  await expect(page.getByRole('heading', { name: monitor, level: 2 })).toBeVisible();
  const id = /environment\/(\d+)/.exec(page.url())?.[1];
  if (id === undefined) throw new Error(`no model id in ${page.url()}`);
  return id;
}

test('department → model → documentation: an engineer uploads a document and reads it back', async ({
  page,
  saveScreenshot,
}) => {
  await openMonitor(page);
  await expect(page).toHaveURL(/\/documentation$/);
  await expect(page.getByText('Инвентарный номер: ИН-000101')).toBeVisible();
  await expect(page.getByRole('tab', { name: 'Краткая инструкция по эксплуатации' })).toBeVisible();

  const title = `Руководство по эксплуатации ${Date.now().toString(36)}`;
  const content = 'Руководство: включение, тревоги, уход за датчиками.\n';
  await page.getByRole('button', { name: 'Загрузить документ' }).click();
  const dialog = page.getByRole('dialog', { name: 'Загрузка документа' });
  await dialog.getByLabel('Введите название документа').fill(title);
  await dialog.locator('input[type=file]').setInputFiles({
    name: 'руководство.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from(content),
  });
  await expect(dialog.getByText('руководство.txt')).toBeVisible();
  await dialog.getByRole('button', { name: 'Загрузить' }).click();
  await expect(dialog).toBeHidden();
  const link = page.getByRole('link', { name: title });
  await expect(link).toBeVisible();
  await saveScreenshot('equipment-documentation');

  // The link carries no token: the page fetches it with one and opens it in a new tab.
  const [tab] = await Promise.all([page.waitForEvent('popup'), link.click()]);
  await tab.waitForURL(/^blob:/);
  await expect(tab.locator('body')).toHaveText(content.trim());

  // The same page on a phone: nothing wider than the screen.
  await page.setViewportSize({ width: 360, height: 740 });
  await expect(link).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await saveScreenshot('equipment-model-phone');
});

test('the QR code downloads as a 256×256 PNG that opens the public instruction', async ({
  page,
  baseURL,
}) => {
  const id = await openMonitor(page);
  await page.getByRole('tab', { name: 'Краткая инструкция по эксплуатации' }).click();
  const shown = page.getByRole('img', { name: 'QR-код отсутствует' });
  await expect(shown).toBeVisible();
  expect(await shown.evaluate((image: HTMLImageElement) => [image.width, image.height])).toEqual([400, 400]);

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Скачать QR-код' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`QR код для ${monitor}.png`);
  const png = PNG.sync.read(await readFile(await download.path()));
  expect([png.width, png.height]).toEqual([256, 256]);
  const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  expect(code?.data).toBe(`${baseURL}/short-instruction/${id}`);
});

test('the public instruction reads on a phone without signing in', async ({ browser, baseURL }) => {
  // A context of its own: no token in its storage, as on a phone that scans the label.
  const phone = await browser.newContext({ baseURL, viewport: { width: 360, height: 740 }, locale: 'ru-RU' });
  const page = await phone.newPage();
  await page.goto('/short-instruction/1');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(monitor);
  await expect(page.getByRole('heading', { name: 'Включение' })).toBeVisible();
  // Nothing wider than the screen, and type big enough to read next to the device.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  const size = await page
    .locator('.instruction li')
    .first()
    .evaluate((item) => parseFloat(getComputedStyle(item).fontSize));
  expect(size).toBeGreaterThanOrEqual(18);
  expect(page.url()).not.toContain('/login');
  await page.screenshot({ path: 'e2e/screenshots/public-instruction-phone.png', fullPage: true });
  await phone.close();
});

test('the instruction editor saves, and what comes back is sanitised', async ({ page, saveScreenshot }) => {
  const id = await openMonitor(page);
  await page.getByRole('tab', { name: 'Краткая инструкция по эксплуатации' }).click();
  await page.getByRole('button', { name: 'Открыть инструкцию' }).click();
  const dialog = page.getByRole('dialog', { name: /Редактирование инструкции/ });
  await expect(dialog.getByRole('button', { name: 'Полужирный' })).toBeVisible();
  const editor = dialog.locator('.ql-editor');
  await editor.click();
  await page.keyboard.press('Control+End');
  // Pasted HTML with a script link and an event handler, as from a careless web page.
  await editor.evaluate((element) => {
    const data = new DataTransfer();
    data.setData(
      'text/html',
      '<p><a href="javascript:alert(1)">Опасная ссылка</a> и <a href="tel:+74950000000">телефон инженера</a></p>' +
        '<p onclick="alert(2)">Проверено e2e</p>',
    );
    element.dispatchEvent(
      new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
    );
  });
  await expect(editor.getByText('Проверено e2e')).toBeVisible();
  await saveScreenshot('equipment-instruction-editor');
  await dialog.getByRole('button', { name: 'Сохранить' }).click();
  await expect(page.getByText('Сохранение инструкции прошло успешно!')).toBeVisible();
  // The page reloads 2 s later and shows what the server stored.
  await page.waitForEvent('load');
  const stored = page.locator('.instruction');
  await expect(stored.getByText('Проверено e2e')).toBeVisible();
  const html = await stored.innerHTML();
  expect(html).not.toMatch(/javascript:|onclick|onerror/i);
  await expect(stored.getByRole('link', { name: 'телефон инженера' })).toHaveAttribute(
    'href',
    'tel:+74950000000',
  );

  const response = await page.request.get(
    `/api/environment-model/get-public-instruction?environmentModelId=${id}`,
  );
  const body = (await response.json()) as { data: { shortInstruction: string } };
  expect(body.data.shortInstruction).toContain('Проверено e2e');
  expect(body.data.shortInstruction).not.toMatch(/javascript:|onclick/i);
});

test('an engineer prints the QR label sheet of a department', async ({ page, saveScreenshot }) => {
  await signIn(page, engineer);
  await page.goto('/departments');
  await page.getByRole('link', { name: new RegExp(icu) }).click();
  await page.getByRole('link', { name: 'Этикетки с QR-кодами' }).click();
  const sheet = page.getByRole('list', { name: `Этикетки оборудования — ${icu}` });
  await expect(sheet).toBeVisible();
  await expect(sheet.getByText('Инвентарный номер: ИН-000101')).toBeVisible();
  await expect(sheet.getByText('Инвентарный номер: ИН-000103')).toHaveCount(0); // surgery's unit
  const labels = sheet.getByRole('listitem');
  expect(await labels.count()).toBeGreaterThanOrEqual(3);
  expect(await sheet.getByRole('img').count()).toBe(await labels.count());
  await saveScreenshot('equipment-label-sheet');

  await page.emulateMedia({ media: 'print' });
  await expect(page.getByRole('button', { name: 'Печать' })).toBeHidden();
  await expect(sheet).toBeVisible();
  await saveScreenshot('equipment-label-sheet-print');
});
