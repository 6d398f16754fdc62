import { readFile } from 'node:fs/promises';

import type { Page } from '@playwright/test';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';

import { engineer, nurse } from '../support/accounts';
import { signIn, signOut } from './session';
import { expect, test } from './test';

// The demo equipment (services/wiki/src/demo.rs) in auth's demo departments.
const icu = 'Отделение реанимации и интенсивной терапии';
const monitor = 'Монитор пациента BeneView T5';
const ventilator = 'Аппарат ИВЛ HAMILTON-C3';

/** Signs in as the demo engineer and opens `model` of the ICU; returns its id. */
async function openModel(page: Page, model: string): Promise<string> {
  await signIn(page, engineer);
  await page.goto('/departments');
  await page.getByRole('link', { name: new RegExp(icu) }).click();
  await expect(page.getByRole('heading', { name: 'Список оборудования' })).toBeVisible();
  await page.getByRole('link', { name: `+ ${model}` }).click();
  await expect(page.getByRole('heading', { name: model, level: 2 })).toBeVisible();
  const id = /environment\/(\d+)/.exec(page.url())?.[1];
  if (id === undefined) throw new Error(`no model id in ${page.url()}`);
  return id;
}

const openMonitor = (page: Page) => openModel(page, monitor);

const chromiumPdfViewer = 'chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai/';

test('department → model → documentation: an engineer uploads a document and reads it back', async ({
  page,
  browser,
  saveScreenshot,
}) => {
  await openMonitor(page);
  await expect(page).toHaveURL(/\/documentation$/);
  // Issue 37: a unit's inventory number opens the unit's own page (spec §2's /home led nowhere).
  await page.getByRole('link', { name: 'Инвентарный номер: ИН-000101' }).click();
  await expect(page).toHaveURL(/\/maintenance-logbook\?unit=\d+$/);
  await expect(page.getByRole('combobox', { name: 'Оборудование' })).toHaveText(
    'Инвентарный номер: ИН-000101',
  );
  await page.getByRole('tab', { name: 'Документация' }).click();
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
  // Spec §4: a successful upload reloads the page.
  await Promise.all([page.waitForEvent('load'), dialog.getByRole('button', { name: 'Загрузить' }).click()]);
  await expect(dialog).toBeHidden();
  const link = page.getByRole('link', { name: title });
  await expect(link).toBeVisible();
  await saveScreenshot('equipment-documentation');

  // Spec §2: the title is a plain link to the download address, in a new tab. The address
  // carries a download link, so it opens where no token is: here a fresh browser, as on a
  // colleague's PC the link was pasted to. Text is saved (not shown) under the title.
  await expect(link).toHaveAttribute('target', '_blank');
  const href = await link.getAttribute('href');
  expect(href).toMatch(/\/api\/file\/download\/\d+\?link=/);
  const colleague = await browser.newContext();
  const fresh = await colleague.newPage();
  const [saved] = await Promise.all([
    fresh.waitForEvent('download'),
    fresh.goto(href ?? '').catch(() => undefined), // "Download is starting" ends the navigation
  ]);
  expect(saved.suggestedFilename()).toBe(`${title}.txt`);
  expect(await readFile(await saved.path(), 'utf8')).toBe(content);
  await colleague.close();

  // The same page on a phone: nothing wider than the screen.
  await page.setViewportSize({ width: 360, height: 740 });
  await expect(link).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await saveScreenshot('equipment-model-phone');
});

test("the demo monitor's manual is listed and opens in the browser's PDF viewer", async ({
  page,
  browser,
  saveScreenshot,
}) => {
  await openMonitor(page);
  // Stored at start by the files service's demo (services/files/src/demo.rs).
  const manual = page.getByRole('link', { name: 'Руководство по эксплуатации', exact: true });
  await expect(manual).toBeVisible();
  await expect(page.getByText(/^Руководство по эксплуатации\.pdf · /)).toBeVisible();
  await saveScreenshot('equipment-demo-manual');

  await expect(manual).toHaveAttribute('target', '_blank');
  const href = await manual.getAttribute('href');
  expect(href).toMatch(/\/api\/file\/download\/\d+\?link=/);
  const [tab] = await Promise.all([page.waitForEvent('popup'), manual.click()]);
  await tab.waitForURL(href ?? '');

  // The address without the token (a fresh browser's request): the demo's PDF byte for
  // byte, shown in place and saved under the document's title.
  const colleague = await browser.newContext();
  const response = await colleague.request.get(href ?? '');
  expect(response.status()).toBe(200);
  expect(response.headers()['content-type']).toBe('application/pdf');
  expect(response.headers()['content-disposition']).toMatch(
    new RegExp(`^inline; .*filename\\*=UTF-8''${encodeURIComponent('Руководство по эксплуатации.pdf')}$`),
  );
  const fixture = await readFile(new URL('../../../services/files/src/demo/manual.pdf', import.meta.url));
  expect((await response.body()).equals(fixture)).toBe(true);
  await colleague.close();
  // Chromium shows a PDF in its viewer, a frame of its built-in PDF extension.
  await expect.poll(() => tab.frames().some((frame) => frame.url().startsWith(chromiumPdfViewer))).toBe(true);
  await tab.waitForTimeout(1000); // the viewer draws the page a moment after it loads
  await tab.screenshot({ path: 'e2e/screenshots/equipment-demo-manual-viewer.png' });
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

/** A real WebM of about a second, recorded in the page from a canvas (MediaRecorder). */
async function recordVideo(page: Page): Promise<Buffer> {
  const bytes = await page.evaluate(async () => {
    const canvas = document.createElement('canvas');
    canvas.width = 320;
    canvas.height = 180;
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no 2d context');
    const recorder = new MediaRecorder(canvas.captureStream(25), { mimeType: 'video/webm' });
    const parts: Blob[] = [];
    recorder.ondataavailable = (event) => parts.push(event.data);
    const stopped = new Promise((done) => (recorder.onstop = done));
    recorder.start();
    for (let frame = 0; frame < 25; frame++) {
      context.fillStyle = `hsl(${frame * 14}, 70%, 45%)`;
      context.fillRect(0, 0, 320, 180);
      context.fillStyle = '#fff';
      context.fillRect(frame * 12, 70, 40, 40);
      await new Promise((next) => setTimeout(next, 40));
    }
    recorder.stop();
    await stopped;
    return Array.from(new Uint8Array(await new Blob(parts).arrayBuffer()));
  });
  return Buffer.from(bytes);
}

test('an engineer uploads a video into the instruction; it plays on the public page, ranged', async ({
  page,
  browser,
  baseURL,
  saveScreenshot,
}) => {
  const id = await openModel(page, ventilator);
  const video = await recordVideo(page);
  expect(video.subarray(0, 4).toString('hex')).toBe('1a45dfa3'); // EBML: a WebM
  await page.getByRole('tab', { name: 'Краткая инструкция по эксплуатации' }).click();
  await page.getByRole('button', { name: 'Открыть инструкцию' }).click();
  const dialog = page.getByRole('dialog', { name: /Редактирование инструкции/ });
  const editor = dialog.locator('.ql-editor');
  await editor.click();
  await page.keyboard.press('Control+End');
  const error = page.getByRole('dialog', { name: 'Ошибка' });
  const pickVideo = async (file: { name: string; mimeType: string; buffer: Buffer }) => {
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      dialog.getByRole('button', { name: 'Вставить видео' }).click(),
    ]);
    await chooser.setFiles(file);
  };

  // Refused: a file that is not a video, by the browser's type, then by its content.
  await pickVideo({ name: 'заметки.txt', mimeType: 'text/plain', buffer: Buffer.from('Заметки') });
  await expect(error.getByText('Выберите видеофайл')).toBeVisible();
  await error.getByRole('button', { name: 'Закрыть' }).click();
  await pickVideo({ name: 'ролик.mp4', mimeType: 'video/mp4', buffer: Buffer.from('не видео, а текст') });
  await expect(error.getByText('Файл не является видео: подходят MP4, MOV, WebM, MKV и AVI')).toBeVisible();
  await error.getByRole('button', { name: 'Закрыть' }).click();
  await expect(dialog.locator('iframe')).toHaveCount(0);

  // The upload blocks the dialog behind a spinner until the answer comes (held back here).
  let release = () => {};
  const held = new Promise<void>((done) => (release = done));
  await page.route('**/api/video/save', async (route) => {
    await held;
    await route.continue();
  });
  await pickVideo({ name: 'Подключение контура.webm', mimeType: 'video/webm', buffer: video });
  const spinner = page.getByRole('status').filter({ hasText: 'Загрузка видео...' });
  await expect(spinner).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Сохранить' })).toBeDisabled();
  await saveScreenshot('equipment-video-uploading', { fullPage: false });
  release();
  await expect(spinner).toBeHidden();
  await page.unroute('**/api/video/save');

  const frame = dialog.locator('iframe.ql-video');
  await expect(frame).toBeVisible();
  const src = await frame.getAttribute('src');
  // Opened without signing in by its unguessable key, not by its id alone.
  expect(src).toMatch(new RegExp(`^${baseURL}/api/file/download/\\d+\\?key=[0-9a-f]{32}$`));
  const videoUrl = src ?? '';
  await saveScreenshot('equipment-video-in-editor', { fullPage: false });

  await dialog.getByRole('button', { name: 'Сохранить' }).click();
  await expect(page.getByText('Сохранение инструкции прошло успешно!')).toBeVisible();
  await page.waitForEvent('load');
  // Shown as a player (a bare video file in a frame would play by itself).
  await expect(page.locator(`.instruction video[src="${videoUrl}"]`)).toBeVisible();
  const response = await page.request.get(
    `/api/environment-model/get-public-instruction?environmentModelId=${id}`,
  );
  const body = (await response.json()) as { data: { shortInstruction: string } };
  const frames = /<iframe[^>]*>/.exec(body.data.shortInstruction)?.[0];
  expect(frames).toContain(`src="${videoUrl}"`);

  // A phone, not signed in: the player fits the screen, plays the video and waits to be started.
  const phone = await browser.newContext({ baseURL, viewport: { width: 360, height: 740 }, locale: 'ru-RU' });
  const publicPage = await phone.newPage();
  await publicPage.goto(`/short-instruction/${id}`);
  await expect(publicPage.getByRole('heading', { level: 1 })).toHaveText(ventilator);
  const shown = publicPage.locator(`video[src="${videoUrl}"]`);
  await expect(shown).toBeVisible();
  const box = await shown.boundingBox();
  expect(box?.width).toBeGreaterThan(200);
  expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(360);
  expect(await publicPage.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await expect.poll(() => shown.evaluate((element: HTMLVideoElement) => element.videoWidth)).toBe(320);
  expect(await shown.evaluate((element: HTMLVideoElement) => element.paused && !element.autoplay)).toBe(true);
  await shown.scrollIntoViewIfNeeded();
  await publicPage.screenshot({ path: 'e2e/screenshots/public-instruction-video-phone.png' });

  // Seeking asks for a byte range: 206 with the slice asked for, without signing in.
  const ranged = await phone.request.get(videoUrl, { headers: { Range: 'bytes=100-299' } });
  expect(ranged.status()).toBe(206);
  expect(ranged.headers()['content-range']).toBe(`bytes 100-299/${video.length}`);
  expect((await ranged.body()).equals(video.subarray(100, 300))).toBe(true);
  await phone.close();
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

/** What the QR code of the label of the unit `inventoryNumber` on the sheet opens. */
async function scanLabel(sheet: ReturnType<Page['getByRole']>, inventoryNumber: string) {
  const label = sheet.getByRole('listitem').filter({ hasText: `Инвентарный номер: ${inventoryNumber}` });
  const src = await label.getByRole('img').getAttribute('src');
  const png = PNG.sync.read(Buffer.from((src ?? '').replace(/^data:image\/png;base64,/, ''), 'base64'));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

// Issue 37: each unit's label opens its model's instruction for that unit, which names the unit
// as a link to its own page; a label printed before (the model's alone) still opens it.
for (const { name, viewport } of [
  { name: 'desktop', viewport: { width: 1366, height: 900 } },
  { name: 'phone', viewport: { width: 360, height: 760 } },
]) {
  test(`each unit's label opens the instruction for that unit (${name})`, async ({ page, baseURL }) => {
    await page.setViewportSize(viewport);
    await signIn(page, engineer);
    await page.goto('/departments/environments/1/labels');
    const sheet = page.getByRole('list', { name: `Этикетки оборудования — ${icu}` });
    await expect(sheet.getByText('Инвентарный номер: ИН-000102')).toBeVisible();
    const first = await scanLabel(sheet, 'ИН-000101');
    const second = await scanLabel(sheet, 'ИН-000102');
    expect(first).toMatch(new RegExp(`^${baseURL}/short-instruction/1\\?unit=\\d+$`));
    expect(second).toMatch(new RegExp(`^${baseURL}/short-instruction/1\\?unit=\\d+$`));
    expect(second).not.toBe(first);

    await page.goto(second ?? '');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(monitor);
    await page.getByRole('link', { name: 'Инвентарный номер: ИН-000102' }).click();
    await expect(page).toHaveURL(
      /\/departments\/environments\/1\/environment\/1\/maintenance-logbook\?unit=\d+$/,
    );
    await expect(page.getByRole('combobox', { name: 'Оборудование' })).toHaveText(
      'Инвентарный номер: ИН-000102',
    );

    await page.goto('/short-instruction/1');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(monitor);
    await expect(page.getByRole('link', { name: /^Инвентарный номер/ })).toHaveCount(0);
  });
}

const crumbs = (page: Page) => page.getByRole('navigation', { name: 'Навигационная цепочка' });

// A refused load is not repeated with back-off (7 s and more): well under that, the page
// says what is wrong, and one failure makes one toast.
test('a missing or foreign department or model says so at once', async ({ page, saveScreenshot }) => {
  const soon = { timeout: 4000 };
  await signIn(page, engineer);
  for (const id of ['999', 'abc']) {
    await page.goto(`/departments/environments/${id}`);
    await expect(page.getByText('Отделение не найдено.')).toBeVisible(soon);
    await expect(page.getByText('В отделении пока нет оборудования.')).toHaveCount(0);
    await expect(crumbs(page).getByText('Не найдено')).toBeVisible();
  }
  await page.goto('/departments/environments/1/environment/999/documentation');
  await expect(page.getByText('Модель оборудования не найдена.')).toBeVisible(soon);
  await expect(crumbs(page).getByText('Не найдено')).toBeVisible();
  // A model that exists, under a department that does not (the demo's models are 1 to 4 in
  // the order of services/wiki/src/demo.rs: the monitor is 1, the ventilator, ICU only, 2).
  await page.goto('/departments/environments/999/environment/1/documentation');
  await expect(page.getByText('Отделение не найдено.')).toBeVisible(soon);
  await expect(page.getByRole('heading', { name: monitor })).toHaveCount(0);

  await signOut(page);
  await signIn(page, nurse);
  await page.goto('/departments/environments/3'); // cardiology: not one of hers
  await expect(page.getByText('Отделение не найдено.')).toBeVisible(soon);
  await expect(page.getByText('У вас нет доступа к данному ресурсу')).toHaveCount(1);
  await saveScreenshot('equipment-foreign-department');
  await page.goto('/departments/environments/3/environment/1/documentation');
  await expect(page.getByText('Отделение не найдено.')).toBeVisible(soon);
  await expect(page.getByRole('heading', { name: monitor })).toHaveCount(0);
  await page.goto('/departments/environments/2/environment/2/documentation'); // surgery: hers, no ventilator
  await expect(page.getByText('Модель оборудования не найдена.')).toBeVisible(soon);
  await expect(page.getByRole('heading', { name: ventilator })).toHaveCount(0);
});

test('the create-unit form marks every missing field at once; a long model name wraps in its menu', async ({
  page,
  saveScreenshot,
}) => {
  await signIn(page, engineer);
  await page.goto('/admin/equipments/equipment-models');
  const longName = `Аппарат ультразвуковой диагностический экспертного класса с функцией эластографии сдвиговой волной ${Date.now().toString(36)}`;
  await page.getByRole('button', { name: 'Создать модель' }).click();
  const create = page.getByRole('dialog', { name: 'Новая модель оборудования' });
  await create.getByLabel('Название').fill(longName);
  await create.getByLabel('Производитель (марка)').fill('Samsung Medison');
  await create.getByLabel('Описание').fill('Ультразвуковой сканер');
  await create.getByRole('button', { name: 'Создать' }).click();
  await expect(create).toBeHidden({ timeout: 10_000 });

  await page.getByRole('button', { name: 'Добавить оборудование' }).click();
  const dialog = page.getByRole('dialog', { name: 'Новая единица оборудования' });
  await dialog.getByRole('button', { name: 'Создать' }).click();
  for (const message of [
    'Выберите модель',
    'Выберите отделение',
    'Введите серийный номер',
    'Введите инвентарный номер',
  ]) {
    await expect(dialog.getByText(message)).toBeVisible();
  }
  await saveScreenshot('equipment-create-unit-empty');

  const dialogBox = await dialog.boundingBox();
  await dialog.getByRole('combobox', { name: /Модель оборудования/ }).click();
  const item = page.getByRole('option', { name: longName });
  await expect(item).toBeVisible();
  const itemBox = await item.boundingBox();
  expect(itemBox?.width).toBeLessThanOrEqual(dialogBox?.width ?? 0);
  // The whole name shows, over several lines, not cut at the screen's edge.
  expect(await item.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
  await saveScreenshot('equipment-create-unit-model-menu', { fullPage: false });
});

test('the sidebar stays white down a long page', async ({ page, saveScreenshot }) => {
  await page.setViewportSize({ width: 1280, height: 600 });
  await signIn(page, engineer);
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(height).toBeGreaterThan(600);
  const column = page.locator('.MuiDrawer-docked');
  const box = await column.boundingBox();
  // scrollHeight is rounded to whole pixels while the box keeps its fraction (1395.64 against 1396).
  expect(box?.height ?? 0).toBeGreaterThan(height - 1);
  expect(await column.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(
    'rgb(255, 255, 255)',
  );
  await saveScreenshot('equipment-sidebar-long-page');
});

test("the editor's header picker speaks Russian on one line, its toolbar above the text", async ({
  page,
  saveScreenshot,
}) => {
  await openMonitor(page);
  await page.getByRole('tab', { name: 'Краткая инструкция по эксплуатации' }).click();
  await page.getByRole('button', { name: 'Открыть инструкцию' }).click();
  const dialog = page.getByRole('dialog', { name: /Редактирование инструкции/ });
  const label = dialog.locator('.ql-picker.ql-header .ql-picker-label');
  const before = (locator: typeof label) =>
    locator.evaluate((element) => getComputedStyle(element, '::before').content);
  // Where the cursor starts (the demo text opens with a heading), in Russian.
  await expect.poll(() => before(label)).toMatch(/^"(Обычный текст|Заголовок [123])"$/);
  expect(await label.evaluate((element) => element.getBoundingClientRect().height)).toBeLessThan(30);
  await label.click();
  const items = dialog.locator('.ql-picker.ql-header .ql-picker-item');
  const names = await Promise.all((await items.all()).map(before));
  expect(names).toEqual(['"Заголовок 1"', '"Заголовок 2"', '"Заголовок 3"', '"Обычный текст"']);
  await saveScreenshot('equipment-editor-header-picker', { fullPage: false });
  await items.first().click();
  await expect.poll(() => before(label)).toBe('"Заголовок 1"');

  // Scrolled down a long text, the toolbar still covers what passes under it.
  const toolbar = dialog.locator('.ql-toolbar');
  const scroller = dialog.locator('.MuiDialogContent-root');
  await scroller.evaluate((element) => {
    element.scrollTop = element.scrollHeight;
  });
  const [toolbarBox, scrollerBox] = await Promise.all([toolbar.boundingBox(), scroller.boundingBox()]);
  expect(Math.abs((toolbarBox?.y ?? 0) - (scrollerBox?.y ?? 100))).toBeLessThanOrEqual(2);
  expect(await toolbar.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(
    'rgb(255, 255, 255)',
  );
});
