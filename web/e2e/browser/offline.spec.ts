import type { APIRequestContext, Page } from '@playwright/test';
import { PNG } from 'pngjs';

import { engineer, nurse } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

// Issue 24 point 5: the QR code's page opens next to the device with no signal once it has
// been opened, and the service worker keeps nothing that is not public.

const phoneView = { viewport: { width: 360, height: 740 }, locale: 'ru-RU' };
/** The worker's cache of public instructions and their pictures (src/service-worker/sw.ts). */
const instructionCache = 'portal-public-instructions';
const savedNotice = /^Сохранённая копия от \d{2}\.\d{2}\.\d{4} \d{2}:\d{2} — нет связи$/;

/** The bearer header of `login`, for the REST calls that set the test up. */
async function bearer(request: APIRequestContext, { login, password }: typeof engineer) {
  const response = await request.post('/api/auth/login', { data: { login, password } });
  const { data } = (await response.json()) as { data: { accessToken: string } };
  return { authorization: `Bearer ${data.accessToken}` };
}

async function post<T>(
  request: APIRequestContext,
  path: string,
  headers: Record<string, string>,
  body: unknown,
) {
  const response = await request.post(path, { headers, data: body });
  const envelope = (await response.json()) as { success: boolean; data: T; errorMessage: string };
  if (!envelope.success) throw new Error(`${path}: ${envelope.errorMessage}`);
  return envelope.data;
}

/** A small PNG of one colour. */
function picture(width: number, height: number): Buffer {
  const png = new PNG({ width, height });
  for (let offset = 0; offset < png.data.length; offset += 4) png.data.set([11, 95, 138, 255], offset);
  return PNG.sync.write(png);
}

/** Every address the page's origin keeps in Cache Storage, by cache. */
const cachedUrls = (page: Page) =>
  page.evaluate(async () => {
    const byCache: Record<string, string[]> = {};
    for (const name of await caches.keys()) {
      byCache[name] = (await (await caches.open(name)).keys()).map((request) => request.url);
    }
    return byCache;
  });

const controlled = (page: Page) =>
  expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);

test('the public instruction opens offline after one visit, with its picture, and comes back current', async ({
  browser,
  baseURL,
  request,
}) => {
  // A model of its own with a picture uploaded to the portal, as an engineer would make it.
  const headers = await bearer(request, engineer);
  const name = `Дефибриллятор ${Date.now().toString(36)}`;
  const model = await post<{ id: number }>(request, '/api/environment-model/create', headers, {
    name,
    brandName: 'Mindray',
    description: 'Для проверки работы без связи',
    shortInstruction: '',
  });
  const upload = await request.post('/api/file/save', {
    headers,
    multipart: {
      idRelated: String(model.id),
      title: 'Панель управления',
      file: { name: 'панель.png', mimeType: 'image/png', buffer: picture(48, 32) },
    },
  });
  expect(upload.ok()).toBe(true);
  // The listing's address carries a download link, which opens without a token (what a phone has).
  const listed = await request.get(`/api/file/get-files?idRelated=${model.id}`, { headers });
  const { data: files } = (await listed.json()) as { data: { title: string; url: string }[] };
  const pictureUrl = new URL(files.find((file) => file.title === 'Панель управления')?.url ?? '', baseURL)
    .href;
  // The editor's own way: a picture inside the HTML, which comes with the instruction.
  const diagram = `data:image/png;base64,${picture(24, 16).toString('base64')}`;
  const instruction = (heading: string) =>
    // Over 1 KiB, so the gateway sends it compressed, as most instructions are.
    `<h2>${heading}</h2><p>Нажмите кнопку питания.</p><p>${'Проверьте заряд батареи и электроды. '.repeat(30)}</p>` +
    `<p><img src="${pictureUrl}" alt="Панель управления"></p><p><img src="${diagram}" alt="Схема подключения"></p>`;
  await post(request, '/api/environment-model/save-instruction', headers, {
    environmentModelId: model.id,
    shortInstruction: instruction('Включение'),
  });
  const read = `${baseURL}/api/environment-model/get-public-instruction?environmentModelId=${model.id}`;

  // The first visit, online: the worker installs and saves the page, the instruction and the picture.
  const phone = await browser.newContext({ baseURL, ...phoneView });
  const page = await phone.newPage();
  await page.goto(`/short-instruction/${model.id}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(name);
  await controlled(page);
  await expect
    .poll(async () => (await cachedUrls(page))[instructionCache]?.sort())
    .toEqual([read, pictureUrl].sort());

  // No signal: opened again, from the saved copy, and it says so.
  await phone.setOffline(true);
  await page.reload();
  const shownPicture = page.getByRole('img', { name: 'Панель управления' });
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(name);
  await expect(page.getByRole('heading', { name: 'Включение' })).toBeVisible();
  await expect.poll(() => shownPicture.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(48);
  const shownDiagram = page.getByRole('img', { name: 'Схема подключения' });
  await expect.poll(() => shownDiagram.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(24);
  await expect(page.getByRole('status')).toHaveText(savedNotice);
  await page.screenshot({ path: 'e2e/screenshots/public-instruction-offline-phone.png' });
  // A new tab opens it too (the QR code scanned again).
  const again = await phone.newPage();
  await again.goto(`/short-instruction/${model.id}`);
  await expect(again.getByRole('heading', { level: 1 })).toHaveText(name);
  await expect(again.getByRole('status')).toHaveText(savedNotice);
  await again.close();

  // The instruction changes meanwhile; the network comes back: the page reads it by itself.
  await post(request, '/api/environment-model/save-instruction', headers, {
    environmentModelId: model.id,
    shortInstruction: instruction('Включение и самопроверка'),
  });
  await phone.setOffline(false);
  // On `online`, or at the latest at the next retry (every 10 s while a saved copy is shown).
  await expect(page.getByRole('heading', { name: 'Включение и самопроверка' })).toBeVisible({
    timeout: 15_000,
  });
  await expect(page.getByRole('status')).toHaveCount(0);
  await expect.poll(() => shownPicture.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(48);
  await phone.close();
});

test('a signed-in phone keeps only public data: no API answer of the session is cached', async ({
  browser,
  baseURL,
}) => {
  const phone = await browser.newContext({ baseURL, ...phoneView });
  const page = await phone.newPage();
  const grpcWeb: string[] = [];
  const signedInReads: string[] = [];
  page.on('request', (sent) => {
    const { pathname } = new URL(sent.url());
    if (pathname.startsWith('/portal.')) grpcWeb.push(pathname);
    else if (pathname.startsWith('/api/') && sent.headers()['authorization']) signedInReads.push(pathname);
  });
  await signIn(page, nurse);
  await controlled(page);
  // The worker is there and sign-in went through it; now the signed-in pages read through grpc-web and REST.
  for (const path of ['/courses', '/my-tests', '/departments', '/cabinet']) {
    await page.goto(path);
    await expect(page.getByRole('main')).toBeVisible();
  }
  await page.goto('/short-instruction/1');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Монитор пациента BeneView T5');
  const read = `${baseURL}/api/environment-model/get-public-instruction?environmentModelId=1`;
  await expect.poll(async () => (await cachedUrls(page))[instructionCache]).toContain(read);
  expect(grpcWeb.length, 'the signed-in pages read through grpc-web').toBeGreaterThan(0);

  const kept = Object.values(await cachedUrls(page)).flat();
  const allowed = (url: string) => {
    const { pathname } = new URL(url);
    return (
      ['/index.html', '/favicon.svg'].includes(pathname) ||
      pathname.startsWith('/assets/') ||
      url.startsWith(`${baseURL}/api/environment-model/get-public-instruction?`)
    );
  };
  expect(kept.filter((url) => !allowed(url))).toEqual([]);
  for (const path of new Set([...grpcWeb, ...signedInReads])) {
    expect(kept.some((url) => url.includes(path))).toBe(false);
  }
  await phone.close();
});

test('the web app is installable: a manifest with icons, and a worker at the root', async ({ page }) => {
  await page.goto('/login');
  const manifestHref = await page.locator('link[rel=manifest]').getAttribute('href');
  expect(manifestHref).toBe('/manifest.webmanifest');
  const manifest = await page.request.get('/manifest.webmanifest');
  expect(manifest.headers()['content-type']).toBe('application/manifest+json');
  const body = (await manifest.json()) as {
    name: string;
    icons: { src: string; sizes: string; purpose: string }[];
  };
  expect(body.name).toBe('Портал сотрудников');
  for (const icon of body.icons) {
    const image = await page.request.get(icon.src);
    expect(image.headers()['content-type'], icon.src).toBe('image/png');
    const png = PNG.sync.read(await image.body());
    expect(`${png.width}x${png.height}`).toBe(icon.sizes);
  }
  expect(body.icons.map((icon) => `${icon.sizes} ${icon.purpose}`).sort()).toEqual([
    '192x192 any',
    '512x512 any',
    '512x512 maskable',
  ]);
  const worker = await page.request.get('/sw.js');
  expect(worker.headers()['content-type']).toMatch(/javascript/);
  expect(worker.headers()['cache-control']).toBe('no-cache');
  await controlled(page);
  expect(await page.evaluate(async () => (await navigator.serviceWorker.ready).scope)).toMatch(/\/$/);
});
